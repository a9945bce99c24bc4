import Foundation
import ParleyCore
import ParleyLive
import ParleyStore
import Synchronization

/// What becomes of an erased account's messages.
public enum ErasedMessages: String, Sendable, CaseIterable {
    /// Kept, shown as from "Deleted user", their files and pictures gone.
    case keep
    /// Deleted, as if each had been deleted by its sender.
    case delete
}

/// Erasure: a person deletes their own account (with its password), or an operator
/// erases one. Profile, email, phone, password, sessions, tokens, uploads go; the
/// account leaves its groups; its handle is held back (`handleHold`) so nobody can take
/// it over at once; its messages stay as from "Deleted user" or go, as the server says.
extension EngineSession {
    /// Deletes the signed-in account for good, proven with its password (nil for an
    /// account that has none: one made with a phone or an ID token).
    public func deleteAccount(password: String?) async throws {
        let user = try requireAccount()
        if let hash = try await store.passwordHash(of: user.id) {
            guard let password, await engine.hasher.verify(password, hash: hash) else {
                throw ParleyError(.badCredentials, "the password is wrong; the account was not deleted")
            }
        }
        guard !engine.isOperator(user) else {
            throw ParleyError(.forbidden, "@\(user.handle) is one of the server's operators (--admin): not while it is")
        }
        try await erase(user, by: user, reason: nil)
    }

    /// An operator erases an account, saying why (for the audit log).
    public func eraseAccount(handle: String, reason: String?) async throws {
        let admin = try requireOperator("erase accounts")
        let reason = try Limits.reason(reason)
        let target = try await account(named: handle)
        guard !engine.isOperator(target) else {
            throw ParleyError(.forbidden, "@\(target.handle) is one of the server's operators (--admin), who cannot be erased")
        }
        try await erase(target, by: admin, reason: reason)
    }

    private func erase(_ user: User, by actor: User, reason: String?) async throws {
        if !user.isBot {
            for bot in try await store.bots(ownedBy: user.id) { try await erase(bot, by: actor, reason: reason) }
        }
        // It leaves every group, handing on those it owned, as a member who leaves.
        for group in try await store.groups(of: user.id) {
            let owner = try await store.membership(of: user.id, in: group.id)?.role == .owner
            _ = try await depart(user, from: group, owner: owner, reason: "account deleted", tellingThem: false)
        }
        let now = engine.now
        let gone = try await store.eraseAccount(
            user.id, deleteMessages: engine.configuration.erasedMessages == .delete,
            holdHandleUntil: now.addingTimeInterval(engine.configuration.handleHold.seconds), at: now)
        for media in gone { engine.blobs?.remove(media) }
        // Direct chats name it anew.
        for chat in try await store.chatIDs(of: user.id) { engine.directory.invalidate(chat) }
        // Its sessions end everywhere; the one that asked hears the answer first, then
        // is signed out (its token is gone with the others).
        let ended = SessionEnd.removed(code: ErrorCode.invalidToken.rawValue, message: "this account was deleted")
        await engine.endSessions(of: user.id, ended, except: actor.id == user.id ? number : -1)
        if actor.id == user.id { await detach(user: user, subscription: state.withLock { $0.subscription }) }
        try await engine.audit(
            .deleteAccount, by: actor, target: "@\(user.handle)", detail: actor.id == user.id ? "by itself" : nil, reason: reason)
    }

    /// Refuses a handle an erased account gave up, while it is held.
    func requireUnheld(_ handle: String) async throws {
        guard try await !store.isHandleHeld(handle, at: engine.now) else {
            throw ParleyError(.handleTaken, "the handle @\(handle) belonged to a deleted account and is held back for now")
        }
    }
}
