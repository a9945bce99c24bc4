import Foundation
import ParleyCore
import ParleyLive
import ParleyStore

/// The server's operators: who they are, how an account is removed, what is audited.
/// Who may come in is the gate's (`ChatEngine+Gate`).
extension ChatEngine {
    /// One of the server's operators (`--admin`): a person, never a bot.
    func isOperator(_ user: User) -> Bool {
        !user.isBot && configuration.admins.contains(where: { $0.caseInsensitiveCompare(user.handle) == .orderedSame })
    }

    /// Ends every session of `user` on every node with `refusal`, and forgets its tokens.
    func remove(_ user: UserID, _ refusal: ParleyError) async throws {
        try await store.deleteSessions(of: user, except: nil)
        await endSessions(of: user, .removed(code: refusal.code.rawValue, message: refusal.message), except: -1)
    }

    /// Keeps a line of the audit log.
    func audit(
        _ action: AuditAction, by actor: User, target: String, in chat: Chat? = nil, detail: String? = nil, reason: String? = nil
    ) async throws {
        try await store.appendAudit(
            AuditEntry(
                at: now, actor: actor.handle, action: action, target: target, chatID: chat?.id,
                place: chat.map { EngineSession.name(of: $0) }, detail: detail, reason: reason))
    }
}
