/// Chats and who is in them: the chat list, direct chats, leaving, members and roles.
public protocol MembersService: AnyObject, Sendable {
    /// The user's chat list, most recent activity first, with unread counts.
    func chats() async throws -> [ChatSummary]
    func chat(_ id: ChatID) async throws -> Chat

    /// The direct chat with a user, if a message has ever been sent between them.
    func directChat(with user: UserID) async throws -> Chat?

    /// Removes a chat from the user's list and clears their history of it; the chat
    /// comes back when a new message arrives. Other members keep theirs.
    func deleteChat(_ chat: ChatID) async throws
    func leave(chat: ChatID) async throws
    func members(chat: ChatID) async throws -> [Member]
    func kick(user: UserID, from chat: ChatID) async throws
    func setRole(_ role: Role, for user: UserID, in chat: ChatID) async throws

    /// The groups the user is a member of.
    func groups() async throws -> [Chat]
}
