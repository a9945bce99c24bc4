import Foundation
import ParleyCore
import ParleyLive
import Synchronization

/// The live sessions of each user: presence is derived from it (online while at least
/// one session lives), and it lets a password change sign out the user's other sessions.
final class SessionRegistry: Sendable {
    struct LiveSession: Sendable {
        var viewing: ChatID?
        var tokenHash: Data
        /// Where it connected from and as whom, for bans made while it is open (which
        /// pass over the server's operators).
        var address: String
        var handle: String
        var isOperator: Bool
        var revoke: @Sendable (ParleyError) -> Void
    }

    /// Each user's sessions by number: a list, as most users have one (a dictionary
    /// each cost an idle session 180 bytes).
    private let sessions = Mutex([UserID: [(number: Int, live: LiveSession)]]())

    /// Registers a session; true when the user just came online.
    func connect(
        _ user: UserID, session: Int, tokenHash: Data, address: String, handle: String, isOperator: Bool,
        revoke: @escaping @Sendable (ParleyError) -> Void
    ) -> Bool {
        sessions.withLock { sessions in
            let wasOnline = !(sessions[user]?.isEmpty ?? true)
            let live = LiveSession(
                viewing: nil, tokenHash: tokenHash, address: address, handle: handle, isOperator: isOperator, revoke: revoke)
            if let index = sessions[user]?.firstIndex(where: { $0.number == session }) {
                sessions[user]?[index].live = live
            } else {
                sessions[user, default: []].append((session, live))
            }
            return !wasOnline
        }
    }

    /// Removes a session; true when the user just went offline.
    func disconnect(_ user: UserID, session: Int) -> Bool {
        sessions.withLock { sessions in
            guard let index = sessions[user]?.firstIndex(where: { $0.number == session }) else { return false }
            sessions[user]?.remove(at: index)
            if sessions[user]?.isEmpty == true {
                sessions[user] = nil
                return true
            }
            return false
        }
    }

    /// Sets what a session views; returns what it viewed before.
    func setViewing(_ chat: ChatID?, user: UserID, session: Int) -> ChatID? {
        sessions.withLock { sessions in
            guard let index = sessions[user]?.firstIndex(where: { $0.number == session }) else { return nil }
            let previous = sessions[user]?[index].live.viewing
            sessions[user]?[index].live.viewing = chat
            return previous
        }
    }

    var onlineUsers: [UserID] {
        sessions.withLock { Array($0.keys) }
    }

    func isOnline(_ user: UserID) -> Bool {
        sessions.withLock { !($0[user]?.isEmpty ?? true) }
    }

    func isViewing(_ user: UserID, _ chat: ChatID) -> Bool {
        sessions.withLock { $0[user]?.contains { $0.live.viewing == chat } ?? false }
    }

    /// What a user views in their most recently chosen session, for presence events.
    func viewing(_ user: UserID) -> ChatID? {
        sessions.withLock { $0[user]?.compactMap(\.live.viewing).first }
    }

    /// The revoke actions of the sessions, on this node, that `refusal` names by their
    /// handle or address, with the refusal to end each with (operators' kept).
    func sessions(refusedBy refusal: (_ handle: String, _ address: String) -> ParleyError?) -> [(
        revoke: @Sendable (ParleyError) -> Void, reason: ParleyError
    )] {
        sessions.withLock { sessions in
            sessions.values.flatMap { list in
                list.compactMap { _, live in live.isOperator ? nil : refusal(live.handle, live.address).map { (live.revoke, $0) } }
            }
        }
    }

    /// The revoke actions of the user's sessions that `end` names, but `session`.
    func sessions(of user: UserID, matching end: SessionEnd, except session: Int? = nil) -> [@Sendable (ParleyError) -> Void] {
        sessions.withLock { sessions in
            (sessions[user] ?? []).filter { number, live in
                guard number != session else { return false }
                switch end {
                case .signedOut(let token): return live.tokenHash == token
                case .passwordChanged(let kept): return live.tokenHash != kept
                case .removed: return true
                }
            }.map(\.live.revoke)
        }
    }
}
