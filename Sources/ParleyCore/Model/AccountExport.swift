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
    public var memberships: [Membership]
    public var reactions: [Reaction]
    /// What the account uploaded that the server still keeps.
    public var uploads: [MediaInfo]
    /// This page of the messages it sent, oldest first (deleted ones not included).
    public var messages: [Message]
    /// The message id to ask after for the next page; nil once this is the last.
    public var next: Int64?

    /// Messages in one page of an export.
    public static let pageSize = 1000
    /// Reactions and uploads an export lists at most.
    public static let maxListed = 100_000

    public init(
        user: User, phone: String?, exportedAt: Date, sessions: [SessionInfo], memberships: [Membership], reactions: [Reaction],
        uploads: [MediaInfo], messages: [Message], next: Int64?
    ) {
        self.user = user
        self.phone = phone
        self.exportedAt = exportedAt
        self.sessions = sessions
        self.memberships = memberships
        self.reactions = reactions
        self.uploads = uploads
        self.messages = messages
        self.next = next
    }
}
