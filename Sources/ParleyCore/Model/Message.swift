public import Foundation

public enum MessageKind: String, Codable, Sendable {
    case text
    case image
    case video
    case system
}

/// A stored message. `seq` numbers the messages of one chat 1, 2, 3… with no gaps.
public struct Message: Hashable, Codable, Sendable {
    public var id: MessageID
    public var chatID: ChatID
    public var seq: Int64
    public var sender: UserRef
    public var kind: MessageKind
    public var text: String
    /// The image or video of an `image` or `video` message (its text is the caption).
    public var media: MediaInfo?
    public var sentAt: Date
    public var clientID: String?
    /// The plugin that sent it for its user (nil: the user did). Plugins do not hear
    /// each other's messages unless they ask to, which keeps two of them from looping.
    public var via: String?

    public init(
        id: MessageID, chatID: ChatID, seq: Int64, sender: UserRef, kind: MessageKind, text: String,
        media: MediaInfo?, sentAt: Date, clientID: String?, via: String? = nil
    ) {
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

    public init(chatID: ChatID, user: UserRef, seq: Int64, readAt: Date) {
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
    public var via: String?

    public init(to recipient: Recipient, text: String, clientID: String? = nil, via: String? = nil) {
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
