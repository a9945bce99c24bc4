public import Foundation
public import ParleyCore

/// Invite links and personal invitations to groups.
public protocol InvitesStore: Sendable {
    func createInvite(_ invite: Invite, at time: Date) async throws
    func invite(code: String) async throws -> Invite?

    /// The newest invitation sent to `user` for `chat` with uses left and not revoked
    /// (the engine checks its expiry).
    func personalInvite(to chat: ChatID, for user: UserID) async throws -> Invite?

    /// Every such invitation sent to `user`, newest first, at most `limit`.
    func personalInvites(for user: UserID, limit: Int) async throws -> [Invite]

    /// Adds `user` to the invite's group and takes one of its uses, atomically. The
    /// engine has checked the invite's rules; if its last use went meanwhile (or it was
    /// revoked), nothing changes and `inviteUsedUp` is thrown. Returns false, taking no
    /// use, when `user` is already a member.
    func useInvite(code: String, user: UserID, at time: Date) async throws -> Bool
    func revokeInvite(code: String) async throws
}
