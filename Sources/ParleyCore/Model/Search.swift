public import Foundation

/// What a message search asks for: words, and filters that narrow where and when. A
/// search with filters and no words lists the messages they allow, newest first.
public struct MessageSearch: Hashable, Codable, Sendable {
    /// Every word must appear; the last one, and any ending in `*`, may go on.
    public var words: String
    /// Only this chat (the user must be a member).
    public var chat: ChatID?
    /// Only the thread of this root, in `chat`.
    public var thread: Int64?
    /// Only messages this user sent.
    public var from: UserID?
    /// Only messages sent before this time.
    public var before: Date?
    /// Only messages sent at or after this time.
    public var after: Date?
    /// How many messages of the chat to show either side of each one found (0 to
    /// `maxContext`).
    public var context: Int
    public var limit: Int

    public static let maxContext = 5

    public init(
        words: String, chat: ChatID? = nil, from: UserID? = nil, before: Date? = nil, after: Date? = nil, context: Int = 0,
        limit: Int = 20, thread: Int64? = nil
    ) {
        self.thread = thread
        self.words = words
        self.chat = chat
        self.from = from
        self.before = before
        self.after = after
        self.context = context
        self.limit = limit
    }

    /// Something besides the words narrows the search.
    public var isFiltered: Bool { chat != nil || from != nil || before != nil || after != nil }
}

/// A message a search found, with the messages of its chat just before and after it
/// when the search asked for context (oldest first in each).
public struct SearchHit: Hashable, Sendable {
    public var message: Message
    public var before: [Message]
    public var after: [Message]

    public init(message: Message, before: [Message] = [], after: [Message] = []) {
        self.message = message
        self.before = before
        self.after = after
    }
}

/// On the wire a hit is the message itself, with `context` beside its fields only when
/// there is some, so a search without context reads as a list of messages.
extension SearchHit: Codable {
    private enum CodingKeys: String, CodingKey { case context }
    private struct Context: Codable, Hashable {
        var before: [Message]
        var after: [Message]
    }

    public init(from decoder: any Decoder) throws {
        message = try Message(from: decoder)
        let context = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Context.self, forKey: .context)
        before = context?.before ?? []
        after = context?.after ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        try message.encode(to: encoder)
        guard !before.isEmpty || !after.isEmpty else { return }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Context(before: before, after: after), forKey: .context)
    }
}
