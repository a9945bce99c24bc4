/// Ignoring people, and a member's notification level per chat.
public protocol IgnoreService: AnyObject, Sendable {
    /// Stops a user's messages, mentions, invites and direct messages reaching this
    /// user, on every client; returns whom.
    func ignore(_ user: UserID) async throws -> UserRef
    func unignore(_ user: UserID) async throws

    /// Whom the user ignores.
    func ignored() async throws -> [UserRef]

    /// What of a chat gets the user's attention (nil: the default); `ChatSummary.notify`.
    func setNotify(_ level: NotifyLevel?, in chat: ChatID) async throws
}
