import Foundation
import ParleyCore
import ParleyStore
import Synchronization

/// What the engine remembers between requests about users' comings and goings: when
/// it last wrote a user's last-seen time and a session's last use (at most once a
/// minute each, so a busy sender does not write per message), when each user last
/// announced typing in each chat, who is away, and who was told so.
final class ActivityTracker: Sendable {
    private struct TypingKey: Hashable {
        var user: UserID
        var chat: ChatID
    }

    private struct State {
        var seenWritten: [UserID: Date] = [:]
        var sessionTouched: [Data: Date] = [:]
        var typing: [TypingKey: Date] = [:]
        var away: [UserID: String] = [:]
        /// For each away user, the senders told so in this away period.
        var told: [UserID: Set<UserID>] = [:]
    }

    /// Last-seen times and sessions' last use are kept to the minute.
    static let resolution: TimeInterval = 60
    /// Entries each table holds before the stale ones are dropped.
    private static let bound = 50_000
    private let state = Mutex(State())

    /// Whether the user's last-seen time and the session's last use are due a write at `now`.
    func due(user: UserID, session: Data?, at now: Date) -> (user: Bool, session: Bool) {
        state.withLock { state in
            let userDue = state.seenWritten[user].map { now.timeIntervalSince($0) >= Self.resolution } ?? true
            if userDue {
                if state.seenWritten.count >= Self.bound {
                    state.seenWritten = state.seenWritten.filter { now.timeIntervalSince($0.value) < Self.resolution }
                }
                state.seenWritten[user] = now
            }
            guard let session else { return (userDue, false) }
            let sessionDue = state.sessionTouched[session].map { now.timeIntervalSince($0) >= Self.resolution } ?? true
            if sessionDue {
                if state.sessionTouched.count >= Self.bound {
                    state.sessionTouched = state.sessionTouched.filter { now.timeIntervalSince($0.value) < Self.resolution }
                }
                state.sessionTouched[session] = now
            }
            return (userDue, sessionDue)
        }
    }

    /// Notes writes made anyway: a sign-in writes the user's last-seen time, and a new
    /// session its last use, so neither is written again for a minute.
    func written(user: UserID?, session: Data?, at now: Date) {
        state.withLock { state in
            if let user { state.seenWritten[user] = now }
            if let session { state.sessionTouched[session] = now }
        }
    }

    /// Whether a typing event from `user` in `chat` may go out at `now`.
    func mayAnnounceTyping(_ user: UserID, in chat: ChatID, at now: Date, interval: TimeInterval) -> Bool {
        state.withLock { state in
            let key = TypingKey(user: user, chat: chat)
            if let last = state.typing[key], now.timeIntervalSince(last) < interval, now >= last { return false }
            if state.typing.count >= Self.bound { state.typing = state.typing.filter { now.timeIntervalSince($0.value) < interval } }
            state.typing[key] = now
            return true
        }
    }

    /// Records that the user went away (or, with nil, came back): a new away period.
    func setAway(_ message: String?, of user: UserID) {
        state.withLock { state in
            state.away[user] = message
            state.told[user] = nil
        }
    }

    func away(of user: UserID) -> String? {
        state.withLock { $0.away[user] }
    }

    /// Whether `sender` should hear that `user` is away: once per away period.
    func shouldTell(_ sender: UserID, that user: UserID) -> Bool {
        state.withLock { state in
            var told = state.told[user] ?? []
            guard told.count < Self.bound, told.insert(sender).inserted else { return false }
            state.told[user] = told
            return true
        }
    }
}

extension ChatEngine {
    /// Notes that the user (on the session with this token) did something: their last
    /// seen time and the session's last use are written at most once a minute.
    func noteActivity(of user: UserID, session: Data?) {
        let now = self.now
        let (seen, used) = activity.due(user: user, session: session, at: now)
        guard seen || used else { return }
        Task { [store] in
            if seen { try? await store.recordSeen(user, at: now) }
            if used, let session { try? await store.touchSession(tokenHash: session, at: now) }
        }
    }
}
