import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// `MembersService`: the chat list, direct chats, leaving, members, kicks and roles.
extension EngineSession {
    /// Leaves a group. An owner leaving hands the group to the oldest admin, or else to
    /// the oldest member.
    public func leave(chat: ChatID) async throws {
        try await leave(chat: chat, reason: nil)
    }

    /// Leaves a group, saying why (an IRC PART message) to those who stay.
    public func leave(chat: ChatID, reason: String?) async throws {
        let reason = try Limits.reason(reason)
        let (entry, role, user) = try await requireGroupMember(chat)
        guard try await depart(user, from: entry.chat, owner: role == .owner, reason: reason, tellingThem: true) else {
            throw ParleyError(.notMember, "you are not a member of #\(entry.chat.handle ?? "")")
        }
    }

    /// Takes `user` out of a group, the oldest admin (or member) taking it over if they
    /// owned it, and tells the members (and `user`, when `tellingThem`); false when they
    /// were not in it. Leaving and an erased account's going both end here.
    func depart(_ user: User, from chat: Chat, owner: Bool, reason: String?, tellingThem: Bool) async throws -> Bool {
        let successor = owner ? Self.successor(of: user.id, among: try await store.members(of: chat.id)) : nil
        guard try await store.removeMember(user.id, from: chat.id, newOwner: successor?.user.id) else { return false }
        engine.directory.invalidate(chat.id)
        try await publish(
            .memberLeft(MemberChange(chat: chat, user: user.ref, reason: reason)), toMembersOf: chat.id,
            alsoTo: tellingThem ? [user.id] : [])
        if let successor {
            try await publish(
                .roleChanged(MemberChange(chat: chat, user: successor.user, role: .owner, by: user.ref)), toMembersOf: chat.id)
        }
        return true
    }

    /// Who takes over a group its owner leaves: the oldest admin, or else the oldest member.
    static func successor(of owner: UserID, among members: [Member]) -> Member? {
        let others = members.filter { $0.user.id != owner }
        return others.first { $0.role == .admin } ?? others.first
    }

    public func members(chat: ChatID) async throws -> [Member] {
        _ = try await requireMember(chat)
        return try await store.members(of: chat)
    }

    /// Removes a member: the owner may kick anyone, an admin only plain members.
    public func kick(user target: UserID, from chat: ChatID) async throws {
        try await kick(user: target, from: chat, reason: nil)
    }

    /// Kicks a member, saying why (an IRC KICK comment).
    public func kick(user target: UserID, from chat: ChatID, reason: String?) async throws {
        let reason = try Limits.reason(reason)
        let (entry, role, user) = try await requireManager(chat)
        guard target != user.id else { throw ParleyError(.invalidArgument, "use /leave to leave a group") }
        guard let targetRole = entry.roles[target] else {
            throw ParleyError(.notMember, "that user is not a member of #\(entry.chat.handle ?? "")")
        }
        guard targetRole < role else {
            throw ParleyError(.forbidden, "you cannot kick a member whose role is \(targetRole.rawValue)")
        }
        guard let targetUser = try await store.user(id: target) else { throw ParleyError(.unknownUser, "no such user") }
        _ = try await store.removeMember(target, from: chat, newOwner: nil)
        engine.directory.invalidate(chat)
        try await publish(
            .memberKicked(MemberChange(chat: entry.chat, user: targetUser.ref, by: user.ref, reason: reason)), toMembersOf: chat,
            alsoTo: [target])
        try await engine.audit(.kick, by: user, target: "@\(targetUser.handle)", in: entry.chat, reason: reason)
    }

    /// Changes a member's role. The owner may set any role, and making someone owner
    /// hands the group over (the old owner becomes an admin); an admin may make members admins.
    public func setRole(_ newRole: Role, for target: UserID, in chat: ChatID) async throws {
        let (entry, role, user) = try await requireManager(chat)
        guard target != user.id else { throw ParleyError(.invalidArgument, "you cannot change your own role") }
        guard let targetRole = entry.roles[target] else {
            throw ParleyError(.notMember, "that user is not a member of #\(entry.chat.handle ?? "")")
        }
        // An admin may voice, unvoice and promote plain and voiced members; the rest is the owner's.
        let allowed = role == .owner || (targetRole < .admin && newRole <= .admin)
        guard allowed else {
            throw ParleyError(.forbidden, "only the owner can make that change")
        }
        guard targetRole != newRole, let targetUser = try await store.user(id: target) else { return }
        try await store.setRole(newRole, of: target, in: chat)
        if newRole == .owner { try await store.setRole(.admin, of: user.id, in: chat) }
        engine.directory.invalidate(chat)
        try await publish(
            .roleChanged(MemberChange(chat: entry.chat, user: targetUser.ref, role: newRole, by: user.ref)), toMembersOf: chat)
        if newRole == .owner {
            try await publish(.roleChanged(MemberChange(chat: entry.chat, user: user.ref, role: .admin, by: user.ref)), toMembersOf: chat)
        }
        try await engine.audit(
            .setRole, by: user, target: "@\(targetUser.handle)", in: entry.chat, detail: "\(targetRole.rawValue) to \(newRole.rawValue)")
    }

    public func groups() async throws -> [Chat] {
        let user = try requireUser()
        return try await store.groups(of: user.id)
    }

    public func chats() async throws -> [ChatSummary] {
        let user = try requireUser()
        var list = try await withoutIgnored(try await store.chatList(for: user.id), for: user.id)
        let inThreads = try await store.unreadInThreads(by: user.id)
        guard !inThreads.isEmpty else { return list }
        for index in list.indices {
            guard let counts = inThreads[list[index].chat.id] else { continue }
            list[index].unread = max(0, list[index].unread - counts.messages)
            list[index].mentions = max(0, list[index].mentions - counts.mentions)
        }
        return list
    }

    public func chat(_ id: ChatID) async throws -> Chat {
        var chat = try await requireMember(id).entry.chat
        chat.serverRetentionDays = engine.configuration.retentionDays
        return chat
    }

    public func directChat(with peer: UserID) async throws -> Chat? {
        let user = try requireUser()
        return try await store.directChat(between: user.id, and: peer)
    }

    public func deleteChat(_ chat: ChatID) async throws {
        let user = try await requireMember(chat).user
        try await store.hideChat(chat, for: user.id, at: engine.now)
        await engine.bus.publish(.chatDeleted(ChatDeleted(chatID: chat)), to: [user.id], except: origin)
    }
}
