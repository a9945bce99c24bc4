public import Foundation
public import ParleyCore

/// A group's webhooks, incoming and outgoing.
public protocol HooksStore: Sendable {
    func createHook(
        chat: ChatID, name: String, tokenHash: Data, signingSecret: String?, by user: UserID, at time: Date, url: String?, trigger: String?
    ) async throws -> Hook

    /// A group's outgoing hooks, with the secrets their calls are signed with.
    func outgoingHooks(of chat: ChatID) async throws -> [(hook: Hook, signingSecret: String)]
    func hookFailed(_ id: Int64, error: String, at time: Date) async throws

    /// A group's hooks, oldest first.
    func hooks(of chat: ChatID) async throws -> [Hook]

    /// The hook whose token hashes to `tokenHash`, with its signing secret.
    func hook(tokenHash: Data) async throws -> (hook: Hook, signingSecret: String?)?

    /// Deletes a hook of `chat`; false when it has no such hook.
    func deleteHook(_ id: Int64, in chat: ChatID) async throws -> Bool
    func hookUsed(_ id: Int64, at time: Date) async throws
}
