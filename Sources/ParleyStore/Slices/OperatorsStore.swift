public import Foundation
public import ParleyCore

/// The operators' tools: suspensions, server-wide bans, the audit log, redaction.
public protocol OperatorsStore: Sendable {
    /// Suspends accounts (replacing an earlier suspension of the same account).
    func suspend(_ suspensions: [Suspension]) async throws
    func suspension(of user: UserID) async throws -> Suspension?
    func suspensions() async throws -> [Suspension]

    /// Lifts the suspension of `user` and of the bots suspended with it; the accounts freed.
    func reinstate(_ user: UserID) async throws -> [UserID]

    /// Keeps a ban; one of the same kind and pattern is replaced.
    func addServerBan(_ ban: ServerBan) async throws -> ServerBan
    func serverBans() async throws -> [ServerBan]

    /// Removes a ban; nil when there is none with that id.
    func removeServerBan(_ id: Int64) async throws -> ServerBan?
    func appendAudit(_ entry: AuditEntry) async throws

    /// The newest entries first, of one group or all, by one actor or any.
    func audit(chat: ChatID?, actor: String?, before: Int64?, limit: Int) async throws -> [AuditEntry]

    /// The live (not deleted) messages a user sent between two times, oldest first, after
    /// message id `after`: (chat, seq, id).
    func sentMessages(by sender: UserID, from: Date?, to: Date?, after: Int64, limit: Int) async throws
        -> [(chat: ChatID, seq: Int64, id: Int64, hasMedia: Bool)]
}
