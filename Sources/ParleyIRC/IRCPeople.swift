import Foundation
import ParleyCore
import Synchronization

/// Who is signed in through this node's gateway, and who was: the counts LUSERS
/// reports and the recent departures WHOWAS answers from. Per node and in memory, as an
/// IRC server keeps them; a signed-up user's last seen comes from the engine besides.
final class IRCPeople: Sendable {
    /// One connection that was signed in, as WHOWAS shows it.
    struct Departure: Sendable {
        var nick: String
        var username: String
        var realname: String
        var at: Date
    }

    private struct State {
        /// The user and real names of the users signed in here, by user.
        var present: [UserID: (username: String, realname: String)] = [:]
        var signedIn = 0
        var most = 0
        /// Newest last, at most `kept`.
        var departures: [Departure] = []
    }

    /// Departures kept for WHOWAS.
    static let kept = 1000
    private let state = Mutex(State())

    var counts: (signedIn: Int, most: Int) { state.withLock { ($0.signedIn, $0.most) } }

    func arrived(_ user: UserID, username: String, realname: String) {
        state.withLock { state in
            state.present[user] = (username, realname)
            state.signedIn += 1
            state.most = max(state.most, state.signedIn)
        }
    }

    /// A new real name (SETNAME) for someone signed in here.
    func renamed(_ user: UserID, realname: String) {
        state.withLock { state in state.present[user]?.realname = realname }
    }

    func departed(_ user: UserID, _ departure: Departure) {
        state.withLock { state in
            state.present[user] = nil
            state.signedIn -= 1
            state.departures.append(departure)
            if state.departures.count > Self.kept { state.departures.removeFirst(state.departures.count - Self.kept) }
        }
    }

    /// What a user signed in here said in USER, for WHOIS.
    func names(of user: UserID) -> (username: String, realname: String)? { state.withLock { $0.present[user] } }

    /// The departures of `nick`, newest first, at most `limit`.
    func departures(of nick: String, limit: Int) -> [Departure] {
        let folded = nick.lowercased()
        return state.withLock { state in
            Array(state.departures.reversed().filter { $0.nick.lowercased() == folded }.prefix(limit))
        }
    }
}
