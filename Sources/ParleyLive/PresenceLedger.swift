public import Foundation
public import ParleyCore

/// Who is online on any node, for servers that share a database. The engine keeps each
/// node's own sessions; a ledger adds what the other nodes hold. Without one (a single
/// process), the engine's own sessions are the whole answer.
public protocol PresenceLedger: Sendable {
    /// Called once with the node's sessions, before any session signs in.
    func bind(to sessions: any LocalSessions)
    /// The user's first session on this node began; true when no other node had one.
    func arrived(_ user: UserID) async -> Bool
    /// The user's last session on this node ended; true when no other node has one.
    func left(_ user: UserID) async -> Bool
    /// Which of `users` have a session on another node.
    func onlineElsewhere(among users: [UserID]) async -> Set<UserID>
    /// Everyone with a session on another node (an operators' notice reaches them all).
    func onlineElsewhere() async -> Set<UserID>
    /// Ends the user's sessions that `end` names on the other nodes too (their tokens
    /// are already deleted); each node calls `LocalSessions.endSessionsHere`.
    func endSessionsElsewhere(of user: UserID, _ end: SessionEnd) async
}

/// What a presence ledger asks of its own node (the engine): who is online here, and
/// what to do when another node says a user went, or a session ended.
public protocol LocalSessions: AnyObject, Sendable {
    /// Users with a live session on this node.
    var usersOnlineHere: [UserID] { get }
    /// Tells the contacts of `users` that they went offline (a node that held their
    /// sessions stopped answering).
    func announceOffline(_ users: [UserID]) async
    /// Ends the user's live sessions on this node that `end` names.
    func endSessionsHere(of user: UserID, _ end: SessionEnd)
}

/// Which of a user's live sessions a change of credentials ends.
public enum SessionEnd: Sendable, Hashable {
    /// Those signed in with this token (it signed out).
    case signedOut(token: Data)
    /// All but those signed in with this token (the password changed there).
    case passwordChanged(keeping: Data?)
    /// Every session: the operators suspended or banned the account. `code` and
    /// `message` are what its clients are told.
    case removed(code: String, message: String)

    /// What the sessions it ends are told.
    public var reason: ParleyError {
        switch self {
        case .signedOut: ParleyError(.invalidToken, "this session was signed out")
        case .passwordChanged: ParleyError(.invalidToken, "the password was changed; sign in again")
        case .removed(let code, let message): ParleyError(ErrorCode(code), message)
        }
    }
}
