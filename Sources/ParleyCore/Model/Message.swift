public import Foundation

public enum MessageKind: String, Codable, Sendable {
    case text
    case image
    case video
    /// A file of any other kind (`media` says which), its text the caption.
    case file
    case system

    /// The kind of a message carrying `media`.
    public init(carrying media: MediaKind) {
        switch media {
        case .image: self = .image
        case .video: self = .video
        case .file: self = .file
        }
    }
}

/// A stored message. `seq` numbers the messages of one chat 1, 2, 3… with no gaps.
public struct Message: Hashable, Sendable {
    public var id: MessageID
    public var chatID: ChatID
    public var seq: Int64
    public var sender: UserRef
    public var kind: MessageKind
    public var text: String
    /// The image, video or file of an `image`, `video` or `file` message (its text is
    /// the caption).
    public var media: MediaInfo?
    public var sentAt: Date
    public var clientID: String?
    /// What it came through (a plugin, a hook, an IRC notice; nil: its sender's own
    /// hand), as the server set it. Plugins do not hear each other's messages unless they
    /// ask to, which keeps two of them from looping.
    public var via: Provenance?
    /// Handles of the members the text mentions with `@handle`, as sent.
    public var mentions: [String]
    /// The text says `@all` or `@here` in a group, mentioning every member.
    public var mentionsEveryone: Bool
    /// The message this one answers, as it reads now.
    public var replyTo: ReplyQuote?
    /// Reactions, each emoji with how many members gave it, in the order first given.
    public var reactions: [ReactionCount]
    /// When the sender last changed the text (nil: never).
    public var editedAt: Date?
    /// When the message was deleted: it stays as a tombstone, its number kept, without
    /// its text or media.
    public var deletedAt: Date?
    /// IRCv3 client-only tags (`+example=value`) the sender attached: they travel with
    /// the message to those online when it is sent and are not kept with it.
    public var clientTags: [String: String]?
    /// The root (`seq`) of the thread the message is in; nil: the chat's main flow.
    public var thread: Int64?
    /// A thread's message also shown in the chat's main flow.
    public var alsoToChat = false
    /// On a thread's root: its title, how many messages it holds and when the last came.
    public var threadHead: ThreadHead?
    /// On a thread's message: the thread's title, as it was when the message was read.
    public var threadTitle: String?
    /// How its sender cut it into lines (IRC's `draft/multiline`), for those it reaches
    /// when it is sent: not kept with it, as client tags are not.
    public var lines: [MessageLine]?

    public init(
        id: MessageID, chatID: ChatID, seq: Int64, sender: UserRef, kind: MessageKind, text: String,
        media: MediaInfo?, sentAt: Date, clientID: String?, via: Provenance? = nil, mentions: [String] = [],
        mentionsEveryone: Bool = false, replyTo: ReplyQuote? = nil, reactions: [ReactionCount] = [], editedAt: Date? = nil,
        deletedAt: Date? = nil
    ) {
        self.mentions = mentions
        self.mentionsEveryone = mentionsEveryone
        self.replyTo = replyTo
        self.reactions = reactions
        self.editedAt = editedAt
        self.deletedAt = deletedAt
        self.id = id
        self.chatID = chatID
        self.seq = seq
        self.sender = sender
        self.kind = kind
        self.text = text
        self.media = media
        self.sentAt = sentAt
        self.clientID = clientID
        self.via = via
    }
}

extension Message {
    /// Whether the message mentions `handle` (by name, or everyone in the group).
    public func mentions(_ handle: String) -> Bool {
        mentionsEveryone || mentions.contains { $0.caseInsensitiveCompare(handle) == .orderedSame }
    }

    public var isDeleted: Bool { deletedAt != nil }
}

/// One line of a message as its sender cut it: `continues` when it goes on from the line
/// before without a line break (IRC's `draft/multiline-concat`).
public struct MessageLine: Hashable, Codable, Sendable {
    public var text: String
    public var continues: Bool

    public init(text: String, continues: Bool) {
        self.text = text
        self.continues = continues
    }

    /// The text the lines make, as a message stores it before trimming.
    public static func joined(_ lines: [MessageLine]) -> String {
        var text = ""
        for (index, line) in lines.enumerated() { text += (index == 0 || line.continues ? "" : "\n") + line.text }
        return text
    }
}

/// The head of the message a reply answers, read when the reply is: a deleted
/// original shows as a tombstone.
public struct ReplyQuote: Hashable, Codable, Sendable {
    public var seq: Int64
    public var sender: UserRef
    /// The first words of the original (empty when it was deleted or is media only).
    public var text: String
    public var deleted: Bool

    public init(seq: Int64, sender: UserRef, text: String, deleted: Bool) {
        self.seq = seq
        self.sender = sender
        self.text = deleted ? "" : ReplyQuote.head(of: text)
        self.deleted = deleted
    }

    /// At most `headLength` characters of the first line, with `…` when cut.
    public static let headLength = 60

    public static func head(of text: String) -> String {
        let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let cut = line.count > headLength || line.count < text.count
        return cut ? String(line.prefix(headLength)) + "…" : line
    }
}

/// One emoji on a message and how many members gave it.
public struct ReactionCount: Hashable, Codable, Sendable {
    public var emoji: String
    public var count: Int

    public init(emoji: String, count: Int) {
        self.emoji = emoji
        self.count = count
    }
}

extension Message: Codable {
    private enum CodingKeys: String, CodingKey {
        case id, chatID, seq, sender, kind, text, media, sentAt, clientID, via, mentions, mentionsEveryone, replyTo, reactions,
            editedAt, deletedAt, clientTags, thread, alsoToChat, threadHead, threadTitle
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(MessageID.self, forKey: .id), chatID: try container.decode(ChatID.self, forKey: .chatID),
            seq: try container.decode(Int64.self, forKey: .seq), sender: try container.decode(UserRef.self, forKey: .sender),
            kind: try container.decode(MessageKind.self, forKey: .kind), text: try container.decode(String.self, forKey: .text),
            media: try container.decodeIfPresent(MediaInfo.self, forKey: .media), sentAt: try container.decode(Date.self, forKey: .sentAt),
            clientID: try container.decodeIfPresent(String.self, forKey: .clientID),
            via: try container.decodeIfPresent(Provenance.self, forKey: .via),
            mentions: try container.decodeIfPresent([String].self, forKey: .mentions) ?? [],
            mentionsEveryone: try container.decodeIfPresent(Bool.self, forKey: .mentionsEveryone) ?? false,
            replyTo: try container.decodeIfPresent(ReplyQuote.self, forKey: .replyTo),
            reactions: try container.decodeIfPresent([ReactionCount].self, forKey: .reactions) ?? [],
            editedAt: try container.decodeIfPresent(Date.self, forKey: .editedAt),
            deletedAt: try container.decodeIfPresent(Date.self, forKey: .deletedAt))
        clientTags = try container.decodeIfPresent([String: String].self, forKey: .clientTags)
        thread = try container.decodeIfPresent(Int64.self, forKey: .thread)
        alsoToChat = try container.decodeIfPresent(Bool.self, forKey: .alsoToChat) ?? false
        threadHead = try container.decodeIfPresent(ThreadHead.self, forKey: .threadHead)
        threadTitle = try container.decodeIfPresent(String.self, forKey: .threadTitle)
    }

    /// Fields a plain message does not use (no mentions, reply, reactions, edit or
    /// deletion) are left out.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(chatID, forKey: .chatID)
        try container.encode(seq, forKey: .seq)
        try container.encode(sender, forKey: .sender)
        try container.encode(kind, forKey: .kind)
        try container.encode(text, forKey: .text)
        try container.encodeIfPresent(media, forKey: .media)
        try container.encode(sentAt, forKey: .sentAt)
        try container.encodeIfPresent(clientID, forKey: .clientID)
        try container.encodeIfPresent(via, forKey: .via)
        if !mentions.isEmpty { try container.encode(mentions, forKey: .mentions) }
        if mentionsEveryone { try container.encode(true, forKey: .mentionsEveryone) }
        try container.encodeIfPresent(replyTo, forKey: .replyTo)
        if !reactions.isEmpty { try container.encode(reactions, forKey: .reactions) }
        try container.encodeIfPresent(editedAt, forKey: .editedAt)
        try container.encodeIfPresent(deletedAt, forKey: .deletedAt)
        try container.encodeIfPresent(clientTags, forKey: .clientTags)
        try container.encodeIfPresent(thread, forKey: .thread)
        if alsoToChat { try container.encode(true, forKey: .alsoToChat) }
        try container.encodeIfPresent(threadHead, forKey: .threadHead)
        try container.encodeIfPresent(threadTitle, forKey: .threadTitle)
    }
}

/// Where a message goes: an existing chat, or a user (their direct chat is created on
/// the first message).
public enum Recipient: Hashable, Codable, Sendable {
    case chat(ChatID)
    case user(UserID)
}

/// How far a user has read in a chat.
public struct ReadMarker: Hashable, Codable, Sendable {
    public var chatID: ChatID
    public var user: UserRef
    public var seq: Int64
    public var readAt: Date
    /// How far the member has read, as a time: the later of when message `seq` was sent
    /// and a time a client marked (IRC's MARKREAD); nil when there is neither.
    public var upTo: Date?

    public init(chatID: ChatID, user: UserRef, seq: Int64, readAt: Date, upTo: Date? = nil) {
        self.upTo = upTo
        self.chatID = chatID
        self.user = user
        self.seq = seq
        self.readAt = readAt
    }
}

/// One text message of a batch (`ChatService.sendMessages`).
public struct OutgoingText: Hashable, Sendable {
    public var recipient: Recipient
    public var text: String
    public var clientID: String?
    /// The plugin it goes through (`Provenance.pluginName(_:)`).
    public var via: String?
    /// The sequence number of the message in the same chat that this one answers.
    public var replyTo: Int64?
    /// The thread it goes to: the `seq` of its root, or of any message in it.
    public var thread: Int64?
    /// A thread's message that the chat's main flow shows too.
    public var alsoToChat: Bool

    public init(
        to recipient: Recipient, text: String, clientID: String? = nil, via: String? = nil, replyTo: Int64? = nil, thread: Int64? = nil,
        alsoToChat: Bool = false
    ) {
        self.thread = thread
        self.alsoToChat = alsoToChat
        self.replyTo = replyTo
        self.recipient = recipient
        self.text = text
        self.clientID = clientID
        self.via = via
    }
}

/// What a batch send did: the messages stored, in order, and the error that stopped
/// it. The message at `sent.count` failed with `failure`; none after it was tried.
public struct SentBatch: Sendable {
    public var sent: [Message]
    public var failure: ParleyError?

    public init(sent: [Message], failure: ParleyError?) {
        self.sent = sent
        self.failure = failure
    }
}
