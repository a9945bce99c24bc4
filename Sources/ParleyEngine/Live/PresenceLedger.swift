public import Foundation
public import ParleyCore
import ParleyStore

/// Who is online on any node, for servers that share a database. The engine keeps each
/// node's own sessions; a ledger adds what the other nodes hold. Without one (a single
/// process), the engine's own sessions are the whole answer.
public protocol PresenceLedger: Sendable {
    /// Called once with the engine, before any session signs in.
    func bind(to engine: ChatEngine)
    /// The user's first session on this node began; true when no other node had one.
    func arrived(_ user: UserID) async -> Bool
    /// The user's last session on this node ended; true when no other node has one.
    func left(_ user: UserID) async -> Bool
    /// Which of `users` have a session on another node.
    func onlineElsewhere(among users: [UserID]) async -> Set<UserID>
    /// Ends the user's sessions that `end` names on the other nodes too (their tokens
    /// are already deleted); each node calls `ChatEngine.endSessionsHere`.
    func endSessionsElsewhere(of user: UserID, _ end: SessionEnd) async
}

/// Which of a user's live sessions a change of credentials ends.
public enum SessionEnd: Sendable, Hashable {
    /// Those signed in with this token (it signed out).
    case signedOut(token: Data)
    /// All but those signed in with this token (the password changed there).
    case passwordChanged(keeping: Data?)

    var reason: ParleyError {
        switch self {
        case .signedOut: ParleyError(.invalidToken, "this session was signed out")
        case .passwordChanged: ParleyError(.invalidToken, "the password was changed; sign in again")
        }
    }
}

extension ChatEngine {
    /// Users with a live session on this node.
    public var usersOnlineHere: [UserID] { registry.onlineUsers }

    /// Tells the contacts of `users` that they went offline (a node that held their
    /// sessions stopped answering).
    public func announceOffline(_ users: [UserID]) async {
        for user in users where !registry.isOnline(user) {
            guard let found = try? await store.user(id: user) else { continue }
            await publishPresence(of: found.ref, online: false, viewing: nil)
        }
    }

    /// Ends the user's live sessions on this node that `end` names.
    public func endSessionsHere(of user: UserID, _ end: SessionEnd) {
        for revoke in registry.sessions(of: user, matching: end) { revoke(end.reason) }
    }

    /// Ends the sessions `end` names on this node (but `session`) and on the others.
    func endSessions(of user: UserID, _ end: SessionEnd, except session: Int) async {
        for revoke in registry.sessions(of: user, matching: end, except: session) { revoke(end.reason) }
        await presence?.endSessionsElsewhere(of: user, end)
    }

    /// A first local session of `user` began: whether they came online everywhere.
    func arrived(_ user: UserID) async -> Bool {
        guard let presence else { return true }
        return await presence.arrived(user)
    }

    /// The last local session of `user` ended: whether they went offline everywhere.
    func left(_ user: UserID) async -> Bool {
        guard let presence else { return true }
        return await presence.left(user)
    }

    /// Which of `users` are online on this node or another.
    func online(among users: [UserID]) async -> Set<UserID> {
        var online = Set(users.filter { registry.isOnline($0) })
        if let presence { online.formUnion(await presence.onlineElsewhere(among: users.filter { !online.contains($0) })) }
        return online
    }
}
