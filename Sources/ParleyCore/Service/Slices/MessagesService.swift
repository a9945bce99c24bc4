/// Sending, history, search, read markers, mentions, typing.
public protocol MessagesService: AnyObject, Sendable {
    /// Stores a message and returns it once committed. Sending to a user creates the
    /// direct chat on the first message. The same `clientID` from the same user returns
    /// the original message instead of storing a second one. `via` names the plugin
    /// sending it for the user, if one is (`Message.via`). With `replyTo`, the message
    /// answers that message of the same chat. `@handle` mentions a member, and `@all`
    /// or `@here` every member of a group (owner and admins, unless the group lets anyone).
    func sendMessage(to recipient: Recipient, text: String, clientID: String?, via: String?, replyTo: Int64?) async throws -> Message

    /// Sends texts in order, as that many `sendMessage` calls would, and stops at the
    /// first that fails. The engine commits a batch in one transaction.
    func sendMessages(_ batch: [OutgoingText]) async -> SentBatch

    /// The latest `limit` messages, or the `limit` before sequence number `before`, oldest first.
    func history(chat: ChatID, limit: Int, before: Int64?) async throws -> [Message]

    /// Messages in the user's chats matching all the words and every filter, newest
    /// first, each with the context it asked for.
    func search(_ search: MessageSearch) async throws -> [SearchHit]

    /// Moves the user's read marker forward to `seq` (never backwards) and returns it.
    func markRead(chat: ChatID, upTo seq: Int64) async throws -> ReadMarker

    /// The members whose read marker is at or past `seq`, other than its sender.
    func seenBy(chat: ChatID, seq: Int64) async throws -> [ReadMarker]

    /// Recent messages that mention the user, newest first.
    func mentions(limit: Int) async throws -> [Message]

    /// Tells the chat's other members the user is typing (at most one event every
    /// few seconds; never stored).
    func typing(in chat: ChatID) async throws
}
