import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore
import Synchronization

/// `ActivityService`: away messages, when people were last around, what each connection
/// is viewing and who is online in a chat.
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

    public func setViewing(_ chat: ChatID?) async throws {
        let user = try requireUser()
        if let chat { _ = try await requireMember(chat) }
        let previous = engine.registry.setViewing(chat, user: user.id, session: number)
        guard previous != chat else { return }
        // Members of the chat now viewed learn it; members of the chat left only learn
        // that the user no longer views it, never where they went.
        var viewers = try await memberIDs(of: chat)
        var leftBehind = try await memberIDs(of: previous)
        leftBehind.subtract(viewers)
        viewers.remove(user.id)
        leftBehind.remove(user.id)
        if !viewers.isEmpty {
            let event = ChatEvent.presenceChanged(PresenceChange(user: user.ref, online: true, viewing: chat))
            await engine.bus.publish(event, to: Array(viewers), except: origin)
        }
        if !leftBehind.isEmpty {
            let event = ChatEvent.presenceChanged(PresenceChange(user: user.ref, online: true, viewing: nil))
            await engine.bus.publish(event, to: Array(leftBehind), except: origin)
        }
    }

    private func memberIDs(of chat: ChatID?) async throws -> Set<UserID> {
        guard let chat, let entry = try await engine.directory.entry(chat) else { return [] }
        return Set(entry.roles.keys)
    }

    public func online(in chat: ChatID) async throws -> [PresenceEntry] {
        let entry = try await requireMember(chat).entry
        // What a member views is known on the node of their session only.
        let online = await engine.online(among: Array(entry.roles.keys)).sorted()
        let away = try await store.away(of: online)
        return try await store.users(ids: online).map {
            PresenceEntry(user: $0.ref, viewing: engine.registry.isViewing($0.id, chat), away: away[$0.id])
        }
    }
}
