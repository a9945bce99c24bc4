public import Foundation

/// A thread: the messages that hang off one root message of a chat, kept out of the
/// chat's main flow unless sent also to the chat. Named by its chat and its root's `seq`
/// (a thread has no id of its own, so every door names it the same way); a title makes
/// it a named topic.
public struct ChatThread: Hashable, Codable, Sendable {
    public var chatID: ChatID
    /// The sequence number of the message it hangs off.
    public var root: Int64
    public var title: String?
    /// How many messages are in it (deleted ones too: their places stay).
    public var replies: Int
    /// The newest message in it (nil: none yet) and when it was sent.
    public var lastSeq: Int64?
    public var lastActivity: Date?
    /// How many messages in it the user has not read (not their own), and whether they
    /// follow it, muted it, or neither.
    public var unread: Int
    /// How many of those mention the user (by handle, or everyone).
    public var mentions: Int
    public var following: ThreadFollowing
    /// The root as it reads now (nil when it is gone from what the user may read).
    public var rootMessage: Message?

    public init(
        chatID: ChatID, root: Int64, title: String?, replies: Int, lastSeq: Int64?, lastActivity: Date?, unread: Int = 0,
        mentions: Int = 0, following: ThreadFollowing = .none, rootMessage: Message? = nil
    ) {
        self.mentions = mentions
        self.chatID = chatID
        self.root = root
        self.title = title
        self.replies = replies
        self.lastSeq = lastSeq
        self.lastActivity = lastActivity
        self.unread = unread
        self.following = following
        self.rootMessage = rootMessage
    }
}

extension ChatThread {
    /// How every door names a thread: its chat's name, `/`, its root's number
    /// (`#ops/12`, `@bob/7`). Nil for a name that names no thread.
    public static func address(_ name: String) -> (chat: Substring, root: Int64)? {
        guard let slash = name.lastIndex(of: "/"), let root = Int64(name[name.index(after: slash)...]), root > 0 else { return nil }
        return (name[..<slash], root)
    }
}

/// A member's stance on a thread. Following is automatic for the root's author, those
/// who post in it and those mentioned there; a followed thread counts in the hotlist and
/// its messages reach the member live; a muted one is never followed again by itself.
public enum ThreadFollowing: String, Hashable, Codable, Sendable {
    case following
    case muted
    case none
}

/// What a root message carries about its thread, for a one-line summary where it stands.
public struct ThreadHead: Hashable, Codable, Sendable {
    public var title: String?
    public var replies: Int
    public var lastActivity: Date?

    public init(title: String?, replies: Int, lastActivity: Date?) {
        self.title = title
        self.replies = replies
        self.lastActivity = lastActivity
    }
}

/// A thread opened or renamed, as its chat's members are told (`thread_updated`).
public struct ThreadUpdate: Hashable, Codable, Sendable {
    public var chat: Chat
    public var root: Int64
    public var title: String?
    public var by: UserRef

    public var chatID: ChatID { chat.id }

    public init(chat: Chat, root: Int64, title: String?, by: UserRef) {
        self.chat = chat
        self.root = root
        self.title = title
        self.by = by
    }
}

/// Which messages of a chat a history page holds.
public enum HistoryFlow: Hashable, Sendable {
    /// Every message, threads' too (IRC's channel, export, bots).
    case all
    /// The chat's main flow: no message that went only to a thread.
    case main
    /// One thread's messages (its root not among them).
    case thread(Int64)
}
