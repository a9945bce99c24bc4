/// Invite links and personal invitations to groups.
public protocol InvitesService: AnyObject, Sendable {
    /// Joins a group with an invite code or a `parley://join/CODE` link.
    func join(invite codeOrLink: String) async throws -> Chat

    /// Adds a user to a group at once (any member of a public group; a private one
    /// takes an owner or admin).
    func invite(user: UserID, to chat: ChatID) async throws

    /// Invites a user to join a group, as IRC's INVITE does: they get `invited`, and for
    /// a day may join it by handle even when it is private, keyed or full (never when
    /// banned). Members may invite to a public group; a private, keyed or full one takes
    /// an owner or admin. Returns the invitation, a code only the invitee can use.
    func sendInvite(to user: UserID, chat: ChatID) async throws -> Invite

    /// The invitations sent to the user that still let them join, newest first.
    func invitations() async throws -> [InviteNotice]
    func createInvite(chat: ChatID, maxUses: Int?, expiresIn: Duration?) async throws -> Invite
    func revokeInvite(code: String) async throws
}
