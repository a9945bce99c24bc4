public import ParleyCore
public import ParleyLive
import ParleyStore

extension ChatEngine: LocalSessions {
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

    /// Everyone online, on this node or another.
    func everyoneOnline() async -> [UserID] {
        var online = Set(registry.onlineUsers)
        if let presence { online.formUnion(await presence.onlineElsewhere()) }
        return Array(online)
    }

    /// Which of `users` are online on this node or another.
    func online(among users: [UserID]) async -> Set<UserID> {
        var online = Set(users.filter { registry.isOnline($0) })
        if let presence { online.formUnion(await presence.onlineElsewhere(among: users.filter { !online.contains($0) })) }
        return online
    }
}
