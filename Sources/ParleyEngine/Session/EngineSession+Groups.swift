import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

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

    public func join(invite codeOrLink: String) async throws -> Chat {
        let user = try requireUser()
        let code = Invite.code(fromCodeOrLink: codeOrLink)
        guard !code.isEmpty, let invite = try await store.invite(code: code) else {
            throw ParleyError(.invalidInvite, "this invite code is not valid")
        }
        if let refusal = invite.refusal(at: engine.now) { throw refusal }
        if let invitee = invite.forUser, invitee != user.id {
            throw ParleyError(.invalidInvite, "this invitation was sent to someone else")
        }
        let alreadyMember = ParleyError(.alreadyMember, "you are already a member of this group")
        guard let group = try await engine.directory.entry(invite.chatID)?.chat else {
            throw ParleyError(.unknownChat, "the group no longer exists")
        }
        if try await engine.directory.entry(invite.chatID)?.roles[user.id] != nil { throw alreadyMember }
        try await requireNotBanned(user.handle, from: group, "you are banned from \(Self.name(of: group))")
        // An invitation to one user lets them in past the member limit, as on IRC.
        if invite.forUser == nil { try await requireRoom(in: group) }
        guard try await store.useInvite(code: code, user: user.id, at: engine.now) else { throw alreadyMember }
        engine.directory.invalidate(invite.chatID)
        guard let entry = try await engine.directory.entry(invite.chatID) else {
            throw ParleyError(.unknownChat, "the group no longer exists")
        }
        let away = try? await store.away(of: [user.id])[user.id]
        try await publish(
            .memberJoined(MemberChange(chat: entry.chat, user: user.ref, role: .member, away: away)), toMembersOf: invite.chatID)
        return entry.chat
    }

    /// Adds a user directly. Any member may add people to a public group (anyone could
    /// join it anyway); a private group takes an owner or admin.
    public func invite(user invitee: UserID, to chat: ChatID) async throws {
        let (entry, role, user) = try await requireGroupMember(chat)
        guard entry.chat.isPublic || role.canManage else {
            throw ParleyError(.forbidden, "only the owner and admins can add people to private #\(entry.chat.handle ?? "")")
        }
        guard let target = try await store.user(id: invitee) else {
            throw ParleyError(.unknownUser, "no user with id \(invitee)")
        }
        guard entry.roles[invitee] == nil else {
            throw ParleyError(.alreadyMember, "@\(target.handle) is already a member")
        }
        // An invitation passes a key and a member limit, as on IRC; never a ban.
        try await requireNotBanned(target.handle, from: entry.chat, "@\(target.handle) is banned from \(Self.name(of: entry.chat))")
        try await addMember(target.ref, to: entry.chat, by: user.ref)
    }

    public func sendInvite(to invitee: UserID, chat: ChatID) async throws -> Invite {
        let (entry, role, user) = try await requireGroupMember(chat)
        let open = entry.chat.isPublic && !entry.chat.keyed && (entry.chat.memberLimit.map { entry.roles.count < $0 } ?? true)
        guard open || role.canManage else {
            throw ParleyError(.forbidden, "only the owner and admins can invite people to \(Self.name(of: entry.chat)) now")
        }
        guard let target = try await store.user(id: invitee) else {
            throw ParleyError(.unknownUser, "no user with id \(invitee)")
        }
        guard entry.roles[invitee] == nil else {
            throw ParleyError(.alreadyMember, "@\(target.handle) is already a member")
        }
        try await requireNotBanned(target.handle, from: entry.chat, "@\(target.handle) is banned from \(Self.name(of: entry.chat))")
        let invite = Invite(
            code: SecretToken.inviteCode(), chatID: chat, createdBy: user.id,
            expiresAt: engine.now.addingTimeInterval(Limits.personalInviteLifetime.seconds), usesLeft: 1, revoked: false,
            forUser: invitee)
        try await store.createInvite(invite, at: engine.now)
        // Someone who ignores the inviter is not told (the invitation stands all the same).
        if await !engine.ignoreBook.ignorers(of: user.id, store: store).contains(invitee) {
            await engine.bus.publish(.invited(InviteNotice(chat: entry.chat, by: user.ref, code: invite.code)), to: [invitee], except: nil)
        }
        return invite
    }

    public func invitations() async throws -> [InviteNotice] {
        let user = try requireUser()
        var notices: [InviteNotice] = []
        for invite in try await store.personalInvites(for: user.id, limit: Limits.maxPageSize) where invite.refusal(at: engine.now) == nil {
            guard let entry = try await engine.directory.entry(invite.chatID), entry.roles[user.id] == nil,
                let inviter = try await store.user(id: invite.createdBy)
            else { continue }
            notices.append(InviteNotice(chat: entry.chat, by: inviter.ref, code: invite.code))
        }
        return notices
    }

    private func addMember(_ member: UserRef, to chat: Chat, by inviter: UserRef?) async throws {
        guard try await store.addMember(member.id, to: chat.id, role: .member, at: engine.now) else {
            throw ParleyError(.alreadyMember, "@\(member.handle) is already a member")
        }
        engine.directory.invalidate(chat.id)
        let away = try? await store.away(of: [member.id])[member.id]
        try await publish(
            .memberJoined(MemberChange(chat: chat, user: member, role: .member, by: inviter, away: away)), toMembersOf: chat.id)
    }

    public func createInvite(chat: ChatID, maxUses: Int?, expiresIn: Duration?) async throws -> Invite {
        let user = try await requireManager(chat).user
        try Limits.invitation(maxUses: maxUses, expiresIn: expiresIn)
        let invite = Invite(
            code: SecretToken.inviteCode(), chatID: chat, createdBy: user.id,
            expiresAt: expiresIn.map { engine.now.addingTimeInterval($0.seconds) }, usesLeft: maxUses, revoked: false)
        try await store.createInvite(invite, at: engine.now)
        return invite
    }

    public func revokeInvite(code: String) async throws {
        _ = try requireUser()
        guard let invite = try await store.invite(code: Invite.code(fromCodeOrLink: code)) else {
            throw ParleyError(.invalidInvite, "this invite code is not valid")
        }
        _ = try await requireManager(invite.chatID)
        try await store.revokeInvite(code: invite.code)
    }
}
