public import Foundation
public import ParleyCore

// The values a `ChatStore` takes and gives besides the model's own types.

/// What a message search looks for, in no store's syntax: words that must all occur,
/// each whole or as the start of a word. Each store turns it into its own full-text
/// query (FTS5 on SQLite), where no term is ever read as query syntax.
public struct SearchQuery: Sendable, Hashable {
    public struct Term: Sendable, Hashable {
        public var word: String
        /// The word may go on: `depl` finds "deployment".
        public var prefix: Bool

        public init(word: String, prefix: Bool) {
            self.word = word
            self.prefix = prefix
        }
    }

    /// Every term must appear; none: the filters alone choose.
    public var terms: [Term]
    public var chat: ChatID?
    public var sender: UserID?
    /// Sent before this time.
    public var before: Date?
    /// Sent at or after this time.
    public var after: Date?
    /// In the thread of this root (of `chat`).
    public var thread: Int64?

    public init(terms: [Term], chat: ChatID? = nil, sender: UserID? = nil, before: Date? = nil, after: Date? = nil, thread: Int64? = nil) {
        self.thread = thread
        self.terms = terms
        self.chat = chat
        self.sender = sender
        self.before = before
        self.after = after
    }
}

public struct CodeRequestCounts: Sendable, Hashable {
    public var forPhone: Int
    public var fromAddress: Int
    public var lastForPhone: Date?
    public init(forPhone: Int, fromAddress: Int, lastForPhone: Date?) {
        self.forPhone = forPhone
        self.fromAddress = fromAddress
        self.lastForPhone = lastForPhone
    }
}

public enum CodeCheck: Sendable, Hashable {
    case valid
    /// No code for the number: never sent, already used, or replaced.
    case missing
    case expired
    case wrong(attemptsLeft: Int)
    /// Every attempt was spent on wrong codes.
    case exhausted
}

public enum Login: Sendable, Hashable {
    case email(String)
    case handle(String)
}

public struct NewUser: Sendable, Hashable {
    public var email: String?
    public var handle: String
    public var displayName: String
    public var passwordHash: String?
    public var isBot: Bool
    public var createdAt: Date
    /// In E.164 form, for accounts that sign in by phone.
    public var phone: String?
    /// The user a bot account belongs to.
    public var owner: UserID?
    /// An IRC guest: no credentials, so nobody can ever sign in as it.
    public var isGuest: Bool
    /// A sign-up code the account uses up, in the same transaction: when the code has
    /// no use left by then (or was revoked), nothing is created and `createUser` throws
    /// `inviteUsedUp`. The engine checks the code's rules before.
    public var signupCode: String?

    public init(
        email: String?, handle: String, displayName: String, passwordHash: String?, isBot: Bool, createdAt: Date, phone: String? = nil,
        owner: UserID? = nil, signupCode: String? = nil, isGuest: Bool = false
    ) {
        self.isGuest = isGuest
        self.phone = phone
        self.owner = owner
        self.signupCode = signupCode
        self.email = email
        self.handle = handle
        self.displayName = displayName
        self.passwordHash = passwordHash
        self.isBot = isBot
        self.createdAt = createdAt
    }
}

public struct NewMessage: Sendable, Hashable {
    public var chatID: ChatID
    public var sender: UserRef
    public var kind: MessageKind
    public var text: String
    public var media: MediaInfo?
    public var clientID: String?
    public var via: Provenance?
    public var sentAt: Date
    /// The members mentioned by handle (never the sender), whose counts it raises.
    public var mentions: [UserRef] = []
    public var mentionsEveryone = false
    /// The message of the same chat this one answers.
    public var replyTo: Int64?
    /// The root of the thread it goes to (checked by the engine: a message of the same
    /// chat, itself in no thread), and whether the chat's main flow shows it too.
    public var thread: Int64?
    public var alsoToChat = false
    /// How its sender cut it into lines, for its event; not stored.
    public var lines: [MessageLine]?
    /// The token hash of the session that sends it, kept with its event so that a
    /// resume of that session does not get it back.
    public var origin: Data?
    /// IRCv3 client-only tags that go with the message's event to those online; the
    /// message does not keep them.
    public var clientTags: [String: String]?

    public init(
        chatID: ChatID, sender: UserRef, kind: MessageKind, text: String, media: MediaInfo? = nil, clientID: String?,
        via: Provenance? = nil,
        sentAt: Date
    ) {
        self.chatID = chatID
        self.sender = sender
        self.kind = kind
        self.text = text
        self.media = media
        self.clientID = clientID
        self.via = via
        self.sentAt = sentAt
    }
}

/// A stored session, for `/sessions`.
public struct StoredSession: Sendable, Hashable {
    public var tokenHash: Data
    public var client: String
    public var address: String
    public var createdAt: Date
    public var lastActiveAt: Date

    public init(tokenHash: Data, client: String, address: String, createdAt: Date, lastActiveAt: Date) {
        self.tokenHash = tokenHash
        self.client = client
        self.address = address
        self.createdAt = createdAt
        self.lastActiveAt = lastActiveAt
    }
}

/// What the store keeps of a user's comings and goings.
public struct StoredActivity: Sendable, Hashable {
    public var lastSignIn: Date?
    public var lastSeen: Date?
    public var hidden: Bool
    public var away: String?

    public init(lastSignIn: Date?, lastSeen: Date?, hidden: Bool, away: String?) {
        self.lastSignIn = lastSignIn
        self.lastSeen = lastSeen
        self.hidden = hidden
        self.away = away
    }
}

/// How the stores keep a message's mentions and reaction counts in a column each.
package enum MessageColumns {
    /// Handles, space-separated (nil: none).
    @inlinable
    package static func mentions(_ handles: [String]) -> String? {
        handles.isEmpty ? nil : handles.joined(separator: " ")
    }

    package static func mentions(_ column: String?) -> [String] {
        column.map { $0.split(separator: " ").map(String.init) } ?? []
    }

    /// One `emoji count` per line (nil: none).
    package static func reactions(_ counts: [ReactionCount]) -> String? {
        counts.isEmpty ? nil : counts.map { "\($0.emoji) \($0.count)" }.joined(separator: "\n")
    }

    package static func reactions(_ column: String?) -> [ReactionCount] {
        guard let column else { return [] }
        return column.split(separator: "\n").compactMap { line in
            guard let space = line.lastIndex(of: " "), let count = Int(line[line.index(after: space)...]) else { return nil }
            return ReactionCount(emoji: String(line[..<space]), count: count)
        }
    }

    /// The quote of a reply from its original's columns, when there is one.
    package static func quote(seq: Int64?, sender: UserRef?, text: String?, deletedAt: Int64?) -> ReplyQuote? {
        guard let seq, let sender else { return nil }
        return ReplyQuote(seq: seq, sender: sender, text: text ?? "", deleted: deletedAt != nil)
    }
}

/// One user's standing in one chat.
public struct Membership: Sendable, Hashable {
    public var role: Role
    public var joinedAt: Date
    public var readSeq: Int64
    /// Messages up to this sequence number were deleted from the user's view.
    public var clearedSeq: Int64
    public var hidden: Bool

    public init(role: Role, joinedAt: Date, readSeq: Int64, clearedSeq: Int64, hidden: Bool) {
        self.role = role
        self.joinedAt = joinedAt
        self.readSeq = readSeq
        self.clearedSeq = clearedSeq
        self.hidden = hidden
    }
}

/// Unread messages of one chat, and how many of them mention the reader.
public struct UnreadCount: Sendable, Hashable {
    public var messages: Int
    public var mentions: Int
    public init(messages: Int, mentions: Int) {
        self.messages = messages
        self.mentions = mentions
    }
}
