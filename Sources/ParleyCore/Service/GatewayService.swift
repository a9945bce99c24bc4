public import Foundation

/// Everything a gateway's connection may ask: `ChatService`, and the verbs only a door
/// such as IRC's has (guests, presence watches, notices and tag-only messages, proving
/// an operator's password without signing in as them). The engine's session conforms,
/// and the IRC gateway holds each connection's session as this: it reaches nothing of the
/// engine but these named verbs.
public protocol GatewayService: ChatService, GuestsService, WatchService {
    /// The address the connection came from.
    var address: String { get }
    /// When the user was last around before this sign-in (IRC's playback starts there).
    var lastSeenBeforeSignIn: Date? { get }

    /// Sends a message with client-only tags (IRC's `+draft/…`), which its receivers get.
    func sendMessage(
        to recipient: Recipient, text: String, clientID: String?, via: String?, replyTo: Int64?, clientTags: [String: String]?
    ) async throws -> Message
    /// Messages with `after < seq < before`, oldest first (IRC's CHATHISTORY).
    func history(chat: ChatID, after: Int64, before: Int64?, limit: Int) async throws -> [Message]
    /// The same of one flow of the chat (a thread's channel pages its thread).
    func history(chat: ChatID, flow: HistoryFlow, after: Int64, before: Int64?, limit: Int) async throws -> [Message]
    /// Moves the read marker to the last message sent by `time` (IRC's MARKREAD).
    func markRead(chat: ChatID, upToTime time: Date) async throws -> ReadMarker
    /// Leaves a group, saying why (IRC's PART reason).
    func leave(chat: ChatID, reason: String?) async throws
    /// Removes a member, saying why (IRC's KICK comment).
    func kick(user: UserID, from chat: ChatID, reason: String?) async throws
    /// Deletes a message, saying why (IRC's REDACT reason).
    func deleteMessage(chat: ChatID, seq: Int64, reason: String?) async throws -> Message
    /// Sends a text from IRC: a `NOTICE` with `notice`; into the thread of message
    /// `thread` (or the one it is in) when given, as IRC's reply (`+draft/reply`) to a
    /// message goes; with client-only tags; `lines`: how a `draft/multiline` batch cut it,
    /// for those it reaches live (dropped when they do not make its text).
    func send(
        _ text: String, lines: [MessageLine]?, to recipient: Recipient, thread: Int64?, notice: Bool, clientTags: [String: String]?
    ) async throws -> Message
    /// Sends a text as an IRC `NOTICE`: nothing answers it automatically.
    func sendNotice(to recipient: Recipient, text: String, replyTo: Int64?, clientTags: [String: String]?) async throws -> Message
    /// Client-only tags without a message (IRC's TAGMSG), never stored.
    @discardableResult
    func sendTags(_ tags: [String: String], to recipient: Recipient) async throws -> TagNotice
    /// The user's own read marker in a chat.
    func readMarker(chat: ChatID) async throws -> ReadMarker
    /// The away messages of a chat's members (IRC's WHO flags them `G`), by id.
    func awayMembers(of chat: ChatID) async throws -> [UserID: String]
    /// What a bot declared (IRC's `/msg BOT help`).
    func botCommands(of bot: UserID) async throws -> [ChatCommand]
    /// Proves the connection knows a server admin's login and password (IRC's OPER)
    /// without signing in as them; returns the admin.
    func authenticateServerAdmin(login: String, password: String) async throws -> User
    /// Gives up the rights `authenticateServerAdmin` proved (IRC's MODE -o).
    func dropOperator()
    /// Tells the user the reminders that came due while they were away (IRC asks once
    /// its client is registered).
    func tellMissedReminders() async
    /// Closes the connection and ends its session with it: nothing is left to resume.
    func end(reason: String?) async
}

extension GatewayService {
    /// Ends the connection's session, with no reason given.
    public func end() async { await end(reason: nil) }
}
