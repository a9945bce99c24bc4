public import Foundation
public import ParleyCore

/// A group's own settings: topic, rules, key, bans, and the directory of public groups.
public protocol GroupsStore: Sendable {
    /// Sets a group's topic, noting who set it (a handle) and when.
    func setTopic(_ topic: String?, of chat: ChatID, by handle: String, at time: Date) async throws -> Chat?
    func setGroupRules(of chat: ChatID, _ change: GroupRulesChange) async throws -> Chat?

    /// The key joining `chat` by handle needs (nil: none).
    func joinKey(of chat: ChatID) async throws -> String?

    /// Public groups whose handle starts with `prefix`, by handle, with member counts.
    func publicGroups(prefix: String, limit: Int, offset: Int) async throws -> [GroupListing]

    /// Bans or unbans a handle (as `Limits.userHandle` gives it) from `chat`; true when
    /// that changed something.
    func setBan(_ handle: String, in chat: ChatID, banned: Bool, at time: Date) async throws -> Bool
    func isBanned(_ handle: String, in chat: ChatID) async throws -> Bool
    func bans(of chat: ChatID) async throws -> [String]
}
