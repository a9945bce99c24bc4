import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// `GroupsService`: groups made, found and joined by name, and each group's own settings
/// (topic, rules, bans).
extension EngineSession {
    public func createGroup(handle: String, title: String?, isPublic: Bool) async throws -> Chat {
        let user = try requireUser()
        let handle = try Limits.groupHandle(handle)
        let title = try title.map { title throws(ParleyError) in try Limits.groupTitle(title) }.flatMap { $0.isEmpty ? nil : $0 }
        let key = "groups \(user.id)"
        if let throttle = engine.throttle {
            let limit = throttle.limits.groupsPerUserPerHour
            if limit > 0, throttle.count(key, now: engine.now) >= limit {
                throw ParleyError(.rateLimited, "at most \(limit) new groups an hour: try again later")
            }
        }
        let made = try await store.createGroup(handle: handle, title: title, isPublic: isPublic, owner: user.id, at: engine.now)
        engine.throttle?.record(key, now: engine.now, span: .seconds(3600))
        return made
    }

    public func publicGroups(_ prefix: String, limit: Int, offset: Int) async throws -> [GroupListing] {
        _ = try requireUser()
        let limit = try Limits.pageSize(limit)
        guard offset >= 0 else { throw ParleyError(.invalidArgument, "the offset cannot be negative") }
        var prefix = prefix.trimmingCharacters(in: .whitespaces)
        if prefix.hasPrefix("#") { prefix.removeFirst() }
        guard prefix.count <= Limits.groupHandleLength.upperBound, !prefix.unicodeScalars.contains(where: Limits.isControl) else {
            throw ParleyError(.invalidArgument, "a group search is at most \(Limits.groupHandleLength.upperBound) characters")
        }
        return try await store.publicGroups(prefix: prefix, limit: limit, offset: offset)
    }

    /// A public group, or a private one the caller belongs to.
    public func group(handle: String) async throws -> Chat {
        let user = try requireUser()
        let bare = handle.hasPrefix("#") ? String(handle.dropFirst()) : handle
        // A control character names no group: the store's C strings would end at a NUL
        // and find the group whose handle stands before it.
        guard !bare.unicodeScalars.contains(where: Limits.isControl), let chat = try await store.group(handle: bare.lowercased()) else {
            throw ParleyError(.unknownGroup, "no group #\(bare)")
        }
        let isMember = try await engine.directory.entry(chat.id)?.roles[user.id] != nil
        // The same answer as /join gives: the group exists, but not for this user.
        guard chat.isPublic || isMember else {
            throw ParleyError(.privateGroup, "#\(bare) is private and you are not in it: join it with an invite code")
        }
        return chat
    }

    /// Joins a public group by handle: not when banned, not past its member limit, and
    /// with its key when it has one. An invitation sent to the user (`sendInvite`) lets
    /// them into a private, keyed or full group, and is used up by it.
    public func joinGroup(handle: String, key: String?) async throws -> Chat {
        let user = try requireUser()
        let bare = handle.hasPrefix("#") ? String(handle.dropFirst()) : handle
        // A control character names no group: the store's C strings would end at a NUL
        // and find the group whose handle stands before it.
        guard !bare.unicodeScalars.contains(where: Limits.isControl), let chat = try await store.group(handle: bare.lowercased()) else {
            throw ParleyError(.unknownGroup, "no group #\(bare)")
        }
        if try await engine.directory.entry(chat.id)?.roles[user.id] != nil {
            throw ParleyError(.alreadyMember, "you are already in #\(bare)")
        }
        if let invitation = try await store.personalInvite(to: chat.id, for: user.id), invitation.refusal(at: engine.now) == nil {
            return try await join(invite: invitation.code)
        }
        guard chat.isPublic else {
            throw ParleyError(.privateGroup, "#\(bare) is private: join it with an invite code")
        }
        try await requireNotBanned(user.handle, from: chat, "you are banned from #\(bare)")
        if chat.keyed {
            guard let key, let expected = try await store.joinKey(of: chat.id), Self.sameKey(key, expected) else {
                throw ParleyError(.badKey, "#\(bare) needs its key to join: /join #\(bare) KEY")
            }
        }
        try await requireRoom(in: chat)
        try await addMember(user.ref, to: chat, by: nil)
        return chat
    }

    /// Compares keys in time that does not depend on where they differ.
    static func sameKey(_ given: String, _ expected: String) -> Bool {
        let (a, b) = (Array(given.utf8), Array(expected.utf8))
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    func requireNotBanned(_ handle: String, from chat: Chat, _ message: String) async throws {
        if try await store.isBanned(handle.lowercased(), in: chat.id) { throw ParleyError(.banned, message) }
    }

    /// Room under the group's member limit, if it has one.
    func requireRoom(in chat: Chat) async throws {
        guard let limit = chat.memberLimit else { return }
        let count = try await engine.directory.entry(chat.id)?.roles.count ?? 0
        guard count < limit else {
            throw ParleyError(.groupFull, "\(Self.name(of: chat)) is full: it takes at most \(limit) members")
        }
    }

    public func setTopic(_ topic: String?, in chat: ChatID) async throws -> Chat {
        let (entry, role, user) = try await requireGroupMember(chat)
        guard role.canManage || entry.chat.anyoneSetsTopic else {
            throw ParleyError(.forbidden, "only the owner and admins of \(Self.name(of: entry.chat)) can set its topic")
        }
        let topic = try topic.flatMap { try Limits.topic($0) }
        return try await updated(chat, by: user, what: .topic) {
            try await store.setTopic(topic, of: chat, by: user.handle, at: engine.now)
        }
    }

    public func setGroupRules(in chat: ChatID, _ change: GroupRulesChange) async throws -> Chat {
        let (entry, _, user) = try await requireManager(chat)
        var change = change
        if let limit = change.memberLimit, !(0...Limits.maxMemberLimit).contains(limit) {
            throw ParleyError(.invalidArgument, "a member limit is 1 to \(Limits.maxMemberLimit), or 0 for none")
        }
        change.key = try change.key.map { key throws(ParleyError) in try Limits.groupKey(key) }
        if let days = change.retentionDays {
            let most = engine.configuration.retentionDays ?? Limits.maxRetentionDays
            guard days == 0 || (1...most).contains(days) else {
                throw ParleyError(
                    .invalidArgument,
                    engine.configuration.retentionDays == nil
                        ? "a group keeps messages 1 to \(most) days, or 0 for as long as the server does"
                        : "this server keeps messages \(most) days: a group keeps them 1 to \(most) days, or 0 for as long as the server does"
                )
            }
        }
        let changed = try await updated(chat, by: user, what: .rules, before: entry.chat) {
            try await store.setGroupRules(of: chat, change)
        }
        let words = Self.rulesChanged(from: entry.chat, to: changed)
        try await engine.audit(.setRules, by: user, target: Self.name(of: changed), in: changed, detail: words.isEmpty ? nil : words)
        var answer = changed
        answer.serverRetentionDays = engine.configuration.retentionDays
        return answer
    }

    public func ban(handle: String, from chat: ChatID) async throws {
        let (entry, role, user) = try await requireManager(chat)
        let handle = try Limits.userHandle(handle)
        guard handle.lowercased() != user.handle.lowercased() else { throw ParleyError(.invalidArgument, "you cannot ban yourself") }
        let target = try await store.user(handle: handle)
        if let target, let targetRole = entry.roles[target.id], targetRole >= role {
            throw ParleyError(.forbidden, "you cannot ban a member whose role is \(targetRole.rawValue)")
        }
        _ = try await store.setBan(handle.lowercased(), in: chat, banned: true, at: engine.now)
        if let target, entry.roles[target.id] != nil { try await kick(user: target.id, from: chat, reason: "banned") }
        _ = try await updated(chat, by: user, what: .bans) { try await store.chat(id: chat) }
        try await engine.audit(.ban, by: user, target: "@\(handle.lowercased())", in: entry.chat)
    }

    public func unban(handle: String, from chat: ChatID) async throws {
        let user = try await requireManager(chat).user
        guard try await store.setBan(try Limits.userHandle(handle).lowercased(), in: chat, banned: false, at: engine.now) else {
            throw ParleyError(.invalidArgument, "@\(handle) is not banned")
        }
        let changed = try await updated(chat, by: user, what: .bans) { try await store.chat(id: chat) }
        try await engine.audit(.unban, by: user, target: "@\(handle.lowercased())", in: changed)
    }

    public func bans(in chat: ChatID) async throws -> [String] {
        _ = try await requireGroupMember(chat)
        return try await store.bans(of: chat)
    }

    /// Applies a change to a group, forgets the cached copy and tells the members.
    private func updated(
        _ chat: ChatID, by user: User, what: ChatChange, before: Chat? = nil, change: () async throws -> Chat?
    ) async throws -> Chat {
        guard let changed = try await change() else { throw ParleyError(.unknownChat, "no chat with id \(chat)") }
        engine.directory.invalidate(chat)
        try await publish(.chatUpdated(ChatUpdated(chat: changed, by: user.ref, what: what, before: before)), toMembersOf: chat)
        return changed
    }
}
