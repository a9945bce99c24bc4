import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// `InvitesService`: invite links, personal invitations, and members added by others.
extension EngineSession {
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

    func addMember(_ member: UserRef, to chat: Chat, by inviter: UserRef?) async throws {
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
