import Foundation
import ParleyCore
import ParleyLive
import ParleyStore

/// Who may come in: a suspended account or a banned handle or address is refused at
/// every way in (a password, a code, an ID token, a bot token, a resumed session).
extension ChatEngine {
    /// Throws what `user` is told when they may not sign in from `address` (nil: not
    /// known here, as for a media request).
    func requireAdmitted(_ user: User, address: String?) async throws {
        if let suspension = try await store.suspension(of: user.id) { throw suspension.refusal }
        guard !isOperator(user) else { return }
        if let ban = try await banBook.ban(handle: user.handle, address: address, at: now, store: store) { throw ban.refusal }
    }

    /// Throws the refusal of a new account with this handle (if chosen) from `address`.
    func requireRegistrationAdmitted(handle: String?, address: String) async throws {
        if let ban = try await banBook.ban(handle: handle, address: address, at: now, store: store) { throw ban.refusal }
    }

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
