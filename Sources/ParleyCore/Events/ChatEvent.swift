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
        }
    }
}

/// A new message, with the chat it belongs to so it can be shown without a lookup.
public struct MessageEvent: Hashable, Codable, Sendable {
    public var chat: Chat
    public var message: Message
    public init(chat: Chat, message: Message) {
        self.chat = chat
        self.message = message
    }
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
    public init(chat: Chat, user: UserRef, role: Role? = nil, by: UserRef? = nil) {
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
    public init(user: UserRef, online: Bool, viewing: ChatID?) {
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
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "message": self = .message(try container.decode(MessageEvent.self, forKey: .data))
        case "chat_created": self = .chatCreated(try container.decode(ChatCreated.self, forKey: .data))
        case "member_joined": self = .memberJoined(try container.decode(MemberChange.self, forKey: .data))
        case "member_left": self = .memberLeft(try container.decode(MemberChange.self, forKey: .data))
        case "member_kicked": self = .memberKicked(try container.decode(MemberChange.self, forKey: .data))
        case "role_changed": self = .roleChanged(try container.decode(MemberChange.self, forKey: .data))
        case "read_marker_moved": self = .readMarkerMoved(try container.decode(ReadMarker.self, forKey: .data))
        case "presence_changed": self = .presenceChanged(try container.decode(PresenceChange.self, forKey: .data))
        case "chat_deleted": self = .chatDeleted(try container.decode(ChatDeleted.self, forKey: .data))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "unknown event type \(type)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .message(let data): try container.encode(data, forKey: .data)
        case .chatCreated(let data): try container.encode(data, forKey: .data)
        case .memberJoined(let data), .memberLeft(let data), .memberKicked(let data), .roleChanged(let data):
            try container.encode(data, forKey: .data)
        case .readMarkerMoved(let data): try container.encode(data, forKey: .data)
        case .presenceChanged(let data): try container.encode(data, forKey: .data)
        case .chatDeleted(let data): try container.encode(data, forKey: .data)
        }
    }
}
