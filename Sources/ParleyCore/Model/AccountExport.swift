public import Foundation

/// Everything the server holds about one account (`/export me FILE`): its profile,
/// sessions, memberships with their read markers, reactions and uploads, and its
/// messages a page at a time (`next` asks for the one after).
public struct AccountExport: Hashable, Codable, Sendable {
    public struct Membership: Hashable, Codable, Sendable {
        public var chat: Chat
        public var role: Role
        public var joinedAt: Date
        /// The last message the account read there.
        public var readSeq: Int64
        public var notify: NotifyLevel?
        public init(chat: Chat, role: Role, joinedAt: Date, readSeq: Int64, notify: NotifyLevel?) {
            self.chat = chat
            self.role = role
            self.joinedAt = joinedAt
            self.readSeq = readSeq
            self.notify = notify
        }
    }

    public struct Reaction: Hashable, Codable, Sendable {
        public var chatID: ChatID
        public var seq: Int64
        public var emoji: String
        public var at: Date
        public init(chatID: ChatID, seq: Int64, emoji: String, at: Date) {
            self.chatID = chatID
            self.seq = seq
            self.emoji = emoji
            self.at = at
        }
    }

    public var user: User
    public var phone: String?
    public var exportedAt: Date
    public var sessions: [SessionInfo]
    /// Every chat the account is in, with its role, read marker and notification level.
    public var memberships: [AccountExport.Membership]
    public var reactions: [Reaction]
    /// What the account uploaded that the server still keeps.
    public var uploads: [MediaInfo]
    /// This page of the messages it wrote itself, oldest first (deleted ones not included).
    public var messages: [Message]
    /// This page of what its hooks posted (sent as the account, in the hook's name):
    /// listed apart, since the account did not write them.
    public var hookPosts: [Message]
    /// Everything else the server keeps of it (first page only).
    public var records: Records
    /// The accounts it ignores, the bots it owns, and its suspension if suspended.
    public var ignores: [UserRef]
    public var bots: [Bot]
    public var suspension: Suspension?
    /// The message id to ask after for the next page; nil once this is the last.
    public var next: Int64?

    /// Messages in one page of an export.
    public static let pageSize = 1000
    /// Reactions and uploads an export lists at most.
    public static let maxListed = 100_000

    public init(
        user: User, phone: String?, exportedAt: Date, sessions: [SessionInfo], memberships: [Membership], reactions: [Reaction],
        uploads: [MediaInfo], messages: [Message], hookPosts: [Message] = [], records: Records = Records(), ignores: [UserRef] = [],
        bots: [Bot] = [], suspension: Suspension? = nil, next: Int64?
    ) {
        self.user = user
        self.phone = phone
        self.exportedAt = exportedAt
        self.sessions = sessions
        self.memberships = memberships
        self.reactions = reactions
        self.uploads = uploads
        self.messages = messages
        self.hookPosts = hookPosts
        self.records = records
        self.ignores = ignores
        self.bots = bots
        self.suspension = suspension
        self.next = next
    }

    /// What a server before hook posts, records, ignores, bots and suspensions were
    /// exported sends still reads: those lists empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        user = try container.decode(User.self, forKey: .user)
        phone = try container.decodeIfPresent(String.self, forKey: .phone)
        exportedAt = try container.decode(Date.self, forKey: .exportedAt)
        sessions = try container.decode([SessionInfo].self, forKey: .sessions)
        memberships = try container.decode([Membership].self, forKey: .memberships)
        reactions = try container.decode([Reaction].self, forKey: .reactions)
        uploads = try container.decode([MediaInfo].self, forKey: .uploads)
        messages = try container.decode([Message].self, forKey: .messages)
        hookPosts = try container.decodeIfPresent([Message].self, forKey: .hookPosts) ?? []
        records = try container.decodeIfPresent(Records.self, forKey: .records) ?? Records()
        ignores = try container.decodeIfPresent([UserRef].self, forKey: .ignores) ?? []
        bots = try container.decodeIfPresent([Bot].self, forKey: .bots) ?? []
        suspension = try container.decodeIfPresent(Suspension.self, forKey: .suspension)
        next = try container.decodeIfPresent(Int64.self, forKey: .next)
    }
}
