public import Foundation

public enum ChatKind: String, Codable, Sendable {
    case direct
    case group
}

public enum Role: String, Codable, Sendable, Comparable {
    case member
    /// A member who may post in a moderated group (IRC's +v).
    case voiced
    case admin
    case owner

    /// Owners and admins manage members and invite links.
    public var canManage: Bool { self >= .admin }
    /// May post when the group is moderated.
    public var canPostWhenModerated: Bool { self >= .voiced }

    private var rank: Int {
        switch self {
        case .member: 0
        case .voiced: 1
        case .admin: 2
        case .owner: 3
        }
    }

    public static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }
}

/// A direct chat between two users or a group chat.
///
/// A direct chat carries its two `participants`, so the same value reads correctly for
/// both of them; a group carries its `handle` (without `#`) and `title`.
public struct Chat: Hashable, Codable, Sendable {
    private enum CodingKeys: String, CodingKey {
        case id, kind, handle, title, isPublic, participants, createdAt, topic, anyoneSetsTopic, anyoneMentionsAll
        case moderated, memberLimit, keyed, unlisted, topicSetBy, topicSetAt, retentionDays, serverRetentionDays
    }

    public var id: ChatID
    public var kind: ChatKind
    public var handle: String?
    public var title: String?
    public var isPublic: Bool
    public var participants: [UserRef]
    public var createdAt: Date
    /// A group's topic, shown on joining and with its members.
    public var topic: String?
    /// The handle of who set the topic, and when (nil for a topic set before Parley
    /// kept them).
    public var topicSetBy: String?
    public var topicSetAt: Date?
    /// Every member may set the topic (otherwise the owner and admins).
    public var anyoneSetsTopic: Bool
    /// Every member may mention `@all`/`@here` (otherwise the owner and admins).
    public var anyoneMentionsAll: Bool
    /// Only the owner, admins and voiced members post (IRC's +m).
    public var moderated = false
    /// Joining needs room under this many members (IRC's +l); nil: no limit.
    public var memberLimit: Int?
    /// Joining by handle needs the group's key (IRC's +k); the key itself is never shown.
    public var keyed = false
    /// Left out of the directory of public groups (IRC's +s), though joinable by handle.
    public var unlisted = false
    /// Messages are kept this many days, then deleted (nil: as long as the server keeps
    /// them; never longer than that).
    public var retentionDays: Int?
    /// Days the server keeps messages (nil: for good), as `chat` and a rules change
    /// answer it: what a group's own policy may not exceed.
    public var serverRetentionDays: Int?

    public init(
        id: ChatID, kind: ChatKind, handle: String?, title: String?, isPublic: Bool,
        participants: [UserRef], createdAt: Date, topic: String? = nil, anyoneSetsTopic: Bool = false, anyoneMentionsAll: Bool = false
    ) {
        self.topic = topic
        self.anyoneSetsTopic = anyoneSetsTopic
        self.anyoneMentionsAll = anyoneMentionsAll
        self.id = id
        self.kind = kind
        self.handle = handle
        self.title = title
        self.isPublic = isPublic
        self.participants = participants
        self.createdAt = createdAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(ChatID.self, forKey: .id), kind: try container.decode(ChatKind.self, forKey: .kind),
            handle: try container.decodeIfPresent(String.self, forKey: .handle),
            title: try container.decodeIfPresent(String.self, forKey: .title), isPublic: try container.decode(Bool.self, forKey: .isPublic),
            participants: try container.decode([UserRef].self, forKey: .participants),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            topic: try container.decodeIfPresent(String.self, forKey: .topic),
            anyoneSetsTopic: try container.decodeIfPresent(Bool.self, forKey: .anyoneSetsTopic) ?? false,
            anyoneMentionsAll: try container.decodeIfPresent(Bool.self, forKey: .anyoneMentionsAll) ?? false)
        moderated = try container.decodeIfPresent(Bool.self, forKey: .moderated) ?? false
        memberLimit = try container.decodeIfPresent(Int.self, forKey: .memberLimit)
        keyed = try container.decodeIfPresent(Bool.self, forKey: .keyed) ?? false
        unlisted = try container.decodeIfPresent(Bool.self, forKey: .unlisted) ?? false
        topicSetBy = try container.decodeIfPresent(String.self, forKey: .topicSetBy)
        topicSetAt = try container.decodeIfPresent(Date.self, forKey: .topicSetAt)
        retentionDays = try container.decodeIfPresent(Int.self, forKey: .retentionDays)
        serverRetentionDays = try container.decodeIfPresent(Int.self, forKey: .serverRetentionDays)
    }

    /// The rules are written only when they allow something (most chats: neither), as
    /// every message event carries its chat.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(handle, forKey: .handle)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encode(isPublic, forKey: .isPublic)
        try container.encode(participants, forKey: .participants)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encodeIfPresent(topic, forKey: .topic)
        if anyoneSetsTopic { try container.encode(true, forKey: .anyoneSetsTopic) }
        if anyoneMentionsAll { try container.encode(true, forKey: .anyoneMentionsAll) }
        if moderated { try container.encode(true, forKey: .moderated) }
        try container.encodeIfPresent(memberLimit, forKey: .memberLimit)
        if keyed { try container.encode(true, forKey: .keyed) }
        if unlisted { try container.encode(true, forKey: .unlisted) }
        try container.encodeIfPresent(topicSetBy, forKey: .topicSetBy)
        try container.encodeIfPresent(topicSetAt, forKey: .topicSetAt)
        try container.encodeIfPresent(retentionDays, forKey: .retentionDays)
        try container.encodeIfPresent(serverRetentionDays, forKey: .serverRetentionDays)
    }

    /// The other side of a direct chat, seen from `user`.
    public func peer(of user: UserID) -> UserRef? {
        guard kind == .direct else { return nil }
        return participants.first { $0.id != user } ?? participants.first
    }
}

/// A member of a chat and their role.
public struct Member: Hashable, Codable, Sendable {
    public var user: UserRef
    public var role: Role
    public var joinedAt: Date
    /// The member's avatar (a media id), if they set one.
    public var avatar: String?

    public init(user: UserRef, role: Role, joinedAt: Date, avatar: String? = nil) {
        self.user = user
        self.role = role
        self.joinedAt = joinedAt
        self.avatar = avatar
    }
}

/// One line of a user's chat list.
public struct ChatSummary: Hashable, Codable, Sendable {
    public var chat: Chat
    public var lastMessage: Message?
    public var unread: Int
    /// Unread messages that mention the user (by handle, or everyone).
    public var mentions: Int
    public var lastActivity: Date
    /// The user's notification level for the chat (nil: the default).
    public var notify: NotifyLevel?

    public init(chat: Chat, lastMessage: Message?, unread: Int, mentions: Int = 0, lastActivity: Date, notify: NotifyLevel? = nil) {
        self.mentions = mentions
        self.notify = notify
        self.chat = chat
        self.lastMessage = lastMessage
        self.unread = unread
        self.lastActivity = lastActivity
    }
}

/// What of a chat gets a member's attention (the bell, a desktop notification): every
/// message, only those that mention them, or nothing (muted). Without one, mentions and
/// direct messages do. Unread messages are counted whatever the level.
public enum NotifyLevel: String, Codable, Sendable, CaseIterable {
    case all
    case mentions
    /// Muted (written `none` on the wire).
    case nothing = "none"
}

/// A change to a group's rules: each field left nil stays as it is.
public struct GroupRulesChange: Hashable, Codable, Sendable {
    public var anyoneSetsTopic: Bool?
    public var anyoneMentionsAll: Bool?
    /// Public groups are listed and joined by handle; private ones by invitation.
    public var isPublic: Bool?
    public var moderated: Bool?
    /// A member limit; 0 removes it.
    public var memberLimit: Int?
    /// The key joining by handle needs; empty removes it.
    public var key: String?
    /// Left out of the directory of public groups.
    public var unlisted: Bool?
    /// Days messages are kept; 0 removes the group's own policy.
    public var retentionDays: Int?

    public init(
        anyoneSetsTopic: Bool? = nil, anyoneMentionsAll: Bool? = nil, isPublic: Bool? = nil, moderated: Bool? = nil,
        memberLimit: Int? = nil, key: String? = nil, unlisted: Bool? = nil, retentionDays: Int? = nil
    ) {
        self.unlisted = unlisted
        self.retentionDays = retentionDays
        self.anyoneSetsTopic = anyoneSetsTopic
        self.anyoneMentionsAll = anyoneMentionsAll
        self.isPublic = isPublic
        self.moderated = moderated
        self.memberLimit = memberLimit
        self.key = key
    }

    public var isEmpty: Bool { self == GroupRulesChange() }
}

/// A public group as the directory lists it (`publicGroups`, IRC's LIST).
public struct GroupListing: Hashable, Codable, Sendable {
    public var chat: Chat
    public var members: Int
    public init(chat: Chat, members: Int) {
        self.chat = chat
        self.members = members
    }
}
