public import Foundation
public import ParleyCore

/// Messages past their group's or the server's retention.
public protocol RetentionStore: Sendable {
    /// Deletes up to `limit` of the oldest messages sent before `cutoff` (of one chat, or
    /// of all in the order they were stored), with their mentions, reactions, search
    /// entries and media grants; how many went, and how many had media.
    func expireMessages(sentBefore cutoff: Date, in chat: ChatID?, limit: Int, at time: Date) async throws -> (messages: Int, media: Int)

    /// The groups with a retention policy of their own, and its days.
    func retentionPolicies() async throws -> [(chat: ChatID, days: Int)]
}
