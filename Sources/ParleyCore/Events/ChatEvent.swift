import Foundation

/// Something that happened in one of the user's chats, delivered live to each of
/// their sessions. Encoded as `{"type": "message", "data": {...}}`.
public enum ChatEvent: Hashable, Sendable {
    case message(MessageEvent)
    case chatCreated(ChatCreated)
    case memberJoined(MemberChange)
    case memberLeft(MemberChange)
    case memberKicked(MemberChange)
    case roleChanged(MemberChange)
    case readMarkerMoved(ReadMarker)
    case presenceChanged(PresenceChange)
    case chatDeleted(ChatDeleted)
    /// A message's text changed; carries the message as it now reads.
    case messageEdited(MessageEvent)
    /// A message became a tombstone; carries it without text or media.
    case messageDeleted(MessageEvent)
    case reactionChanged(ReactionChange)
    /// A group's topic or rules changed.
    case chatUpdated(ChatUpdated)
    /// Someone is typing in a chat (never stored, not replayed on resume).
    case typing(Typing)
    /// The user a direct message went to is away: told to its sender once per away period.
    case away(AwayNotice)
    /// Someone invited the user to a group (IRC's INVITE): they may join it with
    /// `/join #group` or the code, even when it is private, keyed or full.
    case invited(InviteNotice)
    /// A guest of the IRC gateway changed nick, or someone their display name; told to
    /// everyone who shares a chat with them.
    case renamed(Renamed)
    /// Client-only tags sent without a message (IRC's TAGMSG): relayed to a chat's
    /// members, or to one user, and never stored.
    case tagged(TagNotice)
    /// A reminder the user set came due (told to that user alone).
    case reminder(Reminder)
    /// A notice from one of the server's operators to everyone connected (IRC's WALLOPS).
    case wallops(Wallops)
    /// The user set a chat's notification level on one of their clients: the others follow.
    case notifyChanged(NotifyChange)
    /// A thread was opened or renamed: the chat's members keep their copy of its title.
    case threadUpdated(ThreadUpdate)

    /// The stable name of the event on the wire and in `--json` output.
    public var type: String {
        switch self {
        case .message: "message"
        case .chatCreated: "chat_created"
        case .memberJoined: "member_joined"
        case .memberLeft: "member_left"
        case .memberKicked: "member_kicked"
        case .roleChanged: "role_changed"
        case .readMarkerMoved: "read_marker_moved"
        case .presenceChanged: "presence_changed"
        case .chatDeleted: "chat_deleted"
        case .messageEdited: "message_edited"
        case .messageDeleted: "message_deleted"
        case .reactionChanged: "reaction_changed"
        case .chatUpdated: "chat_updated"
        case .typing: "typing"
        case .away: "away"
        case .invited: "invited"
        case .renamed: "renamed"
        case .tagged: "tagged"
        case .reminder: "reminder"
        case .wallops: "wallops"
        case .notifyChanged: "notify_changed"
        case .threadUpdated: "thread_updated"
        }
    }

    /// The chat the event is about, when there is one.
    public var chatID: ChatID? {
        switch self {
        case .message(let event): event.chat.id
        case .chatCreated(let event): event.chat.id
        case .memberJoined(let change), .memberLeft(let change), .memberKicked(let change), .roleChanged(let change):
            change.chat.id
        case .readMarkerMoved(let marker): marker.chatID
        case .presenceChanged(let change): change.viewing
        case .chatDeleted(let event): event.chatID
        case .messageEdited(let event), .messageDeleted(let event): event.chat.id
        case .reactionChanged(let event): event.chat.id
        case .chatUpdated(let event): event.chat.id
        case .typing(let event): event.chatID
        case .away: nil
        case .invited(let notice): notice.chat.id
        case .renamed: nil
        case .tagged(let notice): notice.chatID
        case .reminder(let reminder): reminder.chatID
        case .wallops: nil
        case .notifyChanged(let change): change.chatID
        case .threadUpdated(let update): update.chatID
        }
    }

    /// Events that only matter live (presence, typing): a bus need not keep them for
    /// sessions that resume.
    public var isTransient: Bool {
        switch self {
        case .presenceChanged, .typing, .wallops: true
        default: false
        }
    }
}

/// Where a client is in its user's event feed: the bus that numbered the events (it
/// changes when the server restarts) and the last position received.
public struct EventPosition: Hashable, Codable, Sendable {
    public var epoch: String
    public var position: UInt64
    public init(epoch: String, position: UInt64) {
        self.epoch = epoch
        self.position = position
    }
}

/// A new message, with the chat it belongs to so it can be shown without a lookup.
public struct MessageEvent: Hashable, Codable, Sendable {
    public var chat: Chat
    public var message: Message
    /// Who deleted the message, when it was not its sender (an admin or the owner).
    public var by: UserRef?
    /// Why it was deleted, when the one who deleted it said (IRC's REDACT reason).
    public var reason: String?
    public init(chat: Chat, message: Message, by: UserRef? = nil, reason: String? = nil) {
        self.reason = reason
        self.chat = chat
        self.message = message
        self.by = by
    }
}

/// A member added or took back a reaction; `reactions` are the message's counts after.
public struct ReactionChange: Hashable, Codable, Sendable {
    public var chat: Chat
    public var seq: Int64
    public var user: UserRef
    public var emoji: String
    public var added: Bool
    public var reactions: [ReactionCount]
    /// The message reacted to, as it reads (its sender and first words), for clients
    /// that show a reaction as a line of text.
    public var to: ReplyQuote?
    public init(
        chat: Chat, seq: Int64, user: UserRef, emoji: String, added: Bool, reactions: [ReactionCount], to quote: ReplyQuote? = nil
    ) {
        self.to = quote
        self.chat = chat
        self.seq = seq
        self.user = user
        self.emoji = emoji
        self.added = added
        self.reactions = reactions
    }
}

/// A group's topic (`what` is `topic`) or rules (`rules`) changed.
/// What changed in a group. A new kind is a new case here, which every front end's
/// exhaustive switch must then say how to show.
public enum ChatChange: String, Hashable, Codable, Sendable {
    case topic
    case rules
    case bans
}

public struct ChatUpdated: Hashable, Codable, Sendable {
    /// The group as it is now.
    public var chat: Chat
    public var by: UserRef
    public var what: ChatChange
    /// The group as it was, for a change of its rules (so a client can say what changed).
    public var before: Chat?
    public init(chat: Chat, by: UserRef, what: ChatChange, before: Chat? = nil) {
        self.chat = chat
        self.by = by
        self.what = what
        self.before = before
    }
}

public struct Typing: Hashable, Codable, Sendable {
    public var chatID: ChatID
    public var user: UserRef
    public init(chatID: ChatID, user: UserRef) {
        self.chatID = chatID
        self.user = user
    }
}

public struct AwayNotice: Hashable, Codable, Sendable {
    public var user: UserRef
    public var message: String
    public init(user: UserRef, message: String) {
        self.user = user
        self.message = message
    }
}

/// An invitation to a group, sent to the invitee alone; `code` is an invite code only
/// they can use, valid for `Limits.personalInviteLifetime`.
public struct InviteNotice: Hashable, Codable, Sendable {
    public var chat: Chat
    public var by: UserRef
    public var code: String
    public init(chat: Chat, by: UserRef, code: String) {
        self.chat = chat
        self.by = by
        self.code = code
    }
}

/// A user as they are now called, and the handle they had.
/// Client-only tags someone sent without a message: in a chat, or straight to the
/// receiver (`chatID` nil: a direct TAGMSG before any direct chat exists).
public struct TagNotice: Hashable, Codable, Sendable {
    /// Unique to this notice (IRC's msgid for it), never a message's.
    public var id: String
    public var chatID: ChatID?
    public var user: UserRef
    public var tags: [String: String]
    public init(id: String, chatID: ChatID?, user: UserRef, tags: [String: String]) {
        self.id = id
        self.chatID = chatID
        self.user = user
        self.tags = tags
    }
}

/// A new nick (a guest's) or a new display name (anyone's, when `previousHandle` is the
/// handle still).
public struct Renamed: Hashable, Codable, Sendable {
    public var user: UserRef
    public var previousHandle: String
    /// True when told because the receiver watches the handle (shares no chat with it).
    public var watched: Bool?
    public init(user: UserRef, previousHandle: String, watched: Bool? = nil) {
        self.user = user
        self.previousHandle = previousHandle
        self.watched = watched
    }

    /// The same change, as told to someone who watches the handle.
    public var toWatcher: Renamed { Renamed(user: user, previousHandle: previousHandle, watched: true) }
}

public struct ChatCreated: Hashable, Codable, Sendable {
    public var chat: Chat
    public var by: UserRef
    public init(chat: Chat, by: UserRef) {
        self.chat = chat
        self.by = by
    }
}

/// A member joined, left, was kicked or got a new role. `by` is who did it, when it
/// was not the member themself.
public struct MemberChange: Hashable, Codable, Sendable {
    public var chat: Chat
    public var user: UserRef
    public var role: Role?
    public var by: UserRef?
    /// Why, when the one who left or kicked said (an IRC PART or KICK message).
    public var reason: String?
    /// The away message of someone who joined while away (IRC's away-notify tells it).
    public var away: String?
    public init(chat: Chat, user: UserRef, role: Role? = nil, by: UserRef? = nil, reason: String? = nil, away: String? = nil) {
        self.reason = reason
        self.away = away
        self.chat = chat
        self.user = user
        self.role = role
        self.by = by
    }
}

/// A user came online, went offline, or started viewing a chat.
public struct PresenceChange: Hashable, Codable, Sendable {
    public var user: UserRef
    public var online: Bool
    public var viewing: ChatID?
    /// Their away message, when they are away.
    public var away: String?
    /// Why they went offline, when their client said (an IRC QUIT message).
    public var reason: String?
    /// True when told because the recipient watches the user's handle (IRC's MONITOR)
    /// rather than sharing a chat with them.
    public var watched: Bool?
    public init(user: UserRef, online: Bool, viewing: ChatID?, away: String? = nil, reason: String? = nil, watched: Bool? = nil) {
        self.watched = watched
        self.reason = reason
        self.away = away
        self.user = user
        self.online = online
        self.viewing = viewing
    }
}

public struct ChatDeleted: Hashable, Codable, Sendable {
    public var chatID: ChatID
    public init(chatID: ChatID) { self.chatID = chatID }
}

extension ChatEvent: Codable {
    private enum CodingKeys: String, CodingKey {
        case type
        case data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self = try Self.decode(type: try container.decode(String.self, forKey: .type), from: container, forKey: .data)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try encodeData(into: &container, forKey: .data)
    }

    /// Decodes the event named `type` from its data under `key`: for envelopes that
    /// name the type and the data with their own keys.
    public static func decode<Key: CodingKey>(type: String, from container: KeyedDecodingContainer<Key>, forKey key: Key) throws
        -> ChatEvent
    {
        switch type {
        case "message": .message(try container.decode(MessageEvent.self, forKey: key))
        case "chat_created": .chatCreated(try container.decode(ChatCreated.self, forKey: key))
        case "member_joined": .memberJoined(try container.decode(MemberChange.self, forKey: key))
        case "member_left": .memberLeft(try container.decode(MemberChange.self, forKey: key))
        case "member_kicked": .memberKicked(try container.decode(MemberChange.self, forKey: key))
        case "role_changed": .roleChanged(try container.decode(MemberChange.self, forKey: key))
        case "read_marker_moved": .readMarkerMoved(try container.decode(ReadMarker.self, forKey: key))
        case "presence_changed": .presenceChanged(try container.decode(PresenceChange.self, forKey: key))
        case "chat_deleted": .chatDeleted(try container.decode(ChatDeleted.self, forKey: key))
        case "message_edited": .messageEdited(try container.decode(MessageEvent.self, forKey: key))
        case "message_deleted": .messageDeleted(try container.decode(MessageEvent.self, forKey: key))
        case "reaction_changed": .reactionChanged(try container.decode(ReactionChange.self, forKey: key))
        case "chat_updated": .chatUpdated(try container.decode(ChatUpdated.self, forKey: key))
        case "typing": .typing(try container.decode(Typing.self, forKey: key))
        case "away": .away(try container.decode(AwayNotice.self, forKey: key))
        case "invited": .invited(try container.decode(InviteNotice.self, forKey: key))
        case "renamed": .renamed(try container.decode(Renamed.self, forKey: key))
        case "tagged": .tagged(try container.decode(TagNotice.self, forKey: key))
        case "reminder": .reminder(try container.decode(Reminder.self, forKey: key))
        case "wallops": .wallops(try container.decode(Wallops.self, forKey: key))
        case "notify_changed": .notifyChanged(try container.decode(NotifyChange.self, forKey: key))
        case "thread_updated": .threadUpdated(try container.decode(ThreadUpdate.self, forKey: key))
        default:
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "unknown event type \(type)")
        }
    }

    /// Encodes the event's data (without its type) under `key`.
    public func encodeData<Key: CodingKey>(into container: inout KeyedEncodingContainer<Key>, forKey key: Key) throws {
        switch self {
        case .message(let data), .messageEdited(let data), .messageDeleted(let data): try container.encode(data, forKey: key)
        case .reactionChanged(let data): try container.encode(data, forKey: key)
        case .chatUpdated(let data): try container.encode(data, forKey: key)
        case .typing(let data): try container.encode(data, forKey: key)
        case .away(let data): try container.encode(data, forKey: key)
        case .invited(let data): try container.encode(data, forKey: key)
        case .renamed(let data): try container.encode(data, forKey: key)
        case .tagged(let data): try container.encode(data, forKey: key)
        case .reminder(let data): try container.encode(data, forKey: key)
        case .wallops(let data): try container.encode(data, forKey: key)
        case .notifyChanged(let data): try container.encode(data, forKey: key)
        case .threadUpdated(let data): try container.encode(data, forKey: key)
        case .chatCreated(let data): try container.encode(data, forKey: key)
        case .memberJoined(let data), .memberLeft(let data), .memberKicked(let data), .roleChanged(let data):
            try container.encode(data, forKey: key)
        case .readMarkerMoved(let data): try container.encode(data, forKey: key)
        case .presenceChanged(let data): try container.encode(data, forKey: key)
        case .chatDeleted(let data): try container.encode(data, forKey: key)
        }
    }
}

/// An operator's notice to everyone connected to the server's node.
public struct Wallops: Hashable, Codable, Sendable {
    public var from: UserRef
    public var text: String
    public init(from: UserRef, text: String) {
        self.from = from
        self.text = text
    }
}

/// A chat's notification level for the user, as one of their clients set it (nil: the default).
public struct NotifyChange: Hashable, Codable, Sendable {
    public var chatID: ChatID
    public var level: NotifyLevel?
    public init(chatID: ChatID, level: NotifyLevel?) {
        self.chatID = chatID
        self.level = level
    }
}
