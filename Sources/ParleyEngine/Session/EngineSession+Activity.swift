import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore
import Synchronization

/// Away, last seen, and the user's own sessions.
extension EngineSession {
    public func setAway(_ message: String?) async throws {
        let user = try requireUser()
        let message = try Limits.awayMessage(message)
        let changed = try await store.setAway(message, of: user.id)
        engine.activity.setAway(message, of: user.id)
        if changed { await engine.publishPresence(of: user.ref, online: true, viewing: nil, away: message) }
    }

    public func back() async throws {
        let user = try requireUser()
        let changed = try await store.setAway(nil, of: user.id)
        engine.activity.setAway(nil, of: user.id)
        if changed { await engine.publishPresence(of: user.ref, online: true, viewing: nil) }
    }

    /// The away messages of the members of a chat the user is in (IRC's WHO flags
    /// them `G`), in one read: those who are away, by id.
    public func awayMembers(of chat: ChatID) async throws -> [UserID: String] {
        let (entry, _, _) = try await requireMember(chat, confirmed: false)
        return try await store.away(of: Array(entry.roles.keys))
    }

    public func hideActivity(_ hidden: Bool) async throws {
        let user = try requireUser()
        try await store.setActivityHidden(hidden, of: user.id)
    }

    public func ircPlayback() async throws -> Int? {
        let user = try requireUser()
        return try await store.ircPlayback(of: user.id)
    }

    public func setIRCPlayback(_ limit: Int?) async throws {
        let user = try requireUser()
        if let limit, !(0...Limits.maxPlayback).contains(limit) {
            throw ParleyError(.invalidArgument, "playback takes 0 (none) to \(Limits.maxPlayback) messages a chat")
        }
        try await store.setIRCPlayback(limit, of: user.id)
    }

    public func activity(of target: UserID) async throws -> UserActivity {
        let user = try requireUser()
        guard let found = try await store.user(id: target), let stored = try await store.activity(of: target) else {
            throw ParleyError(.unknownUser, "no user with id \(target)")
        }
        let connected = await engine.online(among: [target]).contains(target)
        let online = connected ? await engine.mayShowOnline(target, to: user.id, hidden: stored.hidden) : false
        // Hiding is mutual: who hides their own times sees nobody else's.
        let askerHides = target != user.id ? (try await store.activity(of: user.id)?.hidden ?? false) : false
        let shown = target == user.id || !(stored.hidden || askerHides)
        let now = engine.now
        let seen = online ? now : stored.lastSeen
        return UserActivity(
            user: found.publicProfile, lastSignIn: shown ? stored.lastSignIn : nil, lastSeen: shown ? seen.map(Self.minute) : nil,
            online: online, away: stored.away, hidden: stored.hidden)
    }

    /// The time to the minute, as last-seen times are kept.
    static func minute(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 60).rounded(.down) * 60)
    }

    public func sessions() async throws -> [SessionInfo] {
        let user = try requireUser()
        let current = state.withLock { $0.tokenHash }
        return try await store.sessions(of: user.id, now: engine.now).map { session in
            SessionInfo(
                id: Self.publicID(of: session.tokenHash), client: session.client, address: session.address, startedAt: session.createdAt,
                lastActiveAt: Self.minute(session.lastActiveAt), current: session.tokenHash == current)
        }
    }

    public func revokeSession(_ id: String) async throws {
        let user = try requireUser()
        let wanted = id.trimmingCharacters(in: .whitespaces).lowercased()
        guard
            let session = try await store.sessions(of: user.id, now: engine.now).first(where: { Self.publicID(of: $0.tokenHash) == wanted })
        else { throw ParleyError(.unknownSession, "you have no session \(id) (see /sessions)") }
        if session.tokenHash == state.withLock({ $0.tokenHash }) { return try await signOut() }
        try await store.deleteSession(tokenHash: session.tokenHash)
        await engine.endSessions(of: user.id, .signedOut(token: session.tokenHash), except: number)
    }

    /// A session's public name: the first 4 bytes of its token's hash, in hex. The
    /// hash cannot be turned back into the token, and a user has few sessions.
    static func publicID(of tokenHash: Data) -> String {
        tokenHash.prefix(4).map { String(format: "%02x", $0) }.joined()
    }
}
