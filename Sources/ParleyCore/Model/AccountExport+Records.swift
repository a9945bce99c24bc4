public import Foundation

extension AccountExport {
    /// An outside identity the account signs in with (`/login --with`): its issuer and
    /// the account's id there.
    public struct Identity: Hashable, Codable, Sendable {
        public var issuer: String
        public var subject: String
        public var linkedAt: Date

        public init(issuer: String, subject: String, linkedAt: Date) {
            self.issuer = issuer
            self.subject = subject
            self.linkedAt = linkedAt
        }
    }

    /// A bot the account owns: its profile, the names of its tokens (never the tokens)
    /// and the commands it told the server it answers.
    public struct Bot: Hashable, Codable, Sendable {
        public var user: User
        public var tokens: [BotToken]
        public var commands: [ChatCommand]

        public init(user: User, tokens: [BotToken], commands: [ChatCommand]) {
            self.user = user
            self.tokens = tokens
            self.commands = commands
        }
    }

    /// What the store keeps of an account beside its profile, chats and messages, read
    /// in one go: each list oldest first, at most `AccountExport.maxListed` long.
    public struct Records: Hashable, Codable, Sendable {
        /// Every reminder it set, pending or told.
        public var reminders: [Reminder]
        /// The reports it filed, with what became of them.
        public var reportsFiled: [Report]
        /// The hooks it made (never their tokens or signing secrets).
        public var hooks: [Hook]
        public var identities: [Identity]
        /// The handles whose comings and goings it watches (`/watch`).
        public var watches: [String]
        /// Invite links it made, and invitations made for it.
        public var invites: [Invite]
        /// Sign-up codes it made (an operator's).
        public var signupCodes: [SignupCode]
        /// The threads it follows or muted, and how far it read each.
        public var threads: [ThreadStance]

        public init(
            reminders: [Reminder] = [], reportsFiled: [Report] = [], hooks: [Hook] = [], identities: [Identity] = [],
            watches: [String] = [], invites: [Invite] = [], signupCodes: [SignupCode] = [], threads: [ThreadStance] = []
        ) {
            self.threads = threads
            self.reminders = reminders
            self.reportsFiled = reportsFiled
            self.hooks = hooks
            self.identities = identities
            self.watches = watches
            self.invites = invites
            self.signupCodes = signupCodes
        }
    }

    /// Every column of the stores that holds an account's id (or an operator's handle),
    /// and where an export puts what it holds, or why it leaves it out. A test walks both
    /// stores' tables and fails on a column missing here: a new table that keeps
    /// something of a person must say where that goes in their export.
    /// How an account stands on a thread: following it or not, and its read position.
    public struct ThreadStance: Hashable, Codable, Sendable {
        public var chatID: ChatID
        public var root: Int64
        public var following: ThreadFollowing
        public var readSeq: Int64

        public init(chatID: ChatID, root: Int64, following: ThreadFollowing, readSeq: Int64) {
            self.chatID = chatID
            self.root = root
            self.following = following
            self.readSeq = readSeq
        }
    }

    public static let coverage: [String: String] = [
        "thread_member.user_id": "records.threads (following, muted, read position)",
        "user.id": "user",
        "user.owner_id": "bots",
        "session.user_id": "sessions",
        "member.user_id": "memberships (role, read marker, notification level)",
        "message.sender_id": "messages, and hookPosts for what its hooks posted",
        "reaction.user_id": "reactions",
        "media_upload.user_id": "uploads (and the files, beside the export)",
        "reminder.user_id": "records.reminders",
        "ignore.user_id": "ignores",
        "ignore.ignored_id": "left out: who ignores an account is theirs to know",
        "report.reporter_id": "records.reportsFiled",
        "report.sender_id": "left out: reports about an account name who filed them; the operators hold them",
        "report.resolved_by": "records.reportsFiled (the operator who resolved one)",
        "bot_token.user_id": "bots[].tokens (names and dates, never the tokens)",
        "bot_command_set.user_id": "bots[].commands",
        "hook.created_by": "records.hooks (never their tokens or signing secrets)",
        "identity.user_id": "records.identities",
        "invite.created_by": "records.invites",
        "invite.for_user": "records.invites",
        "presence_watch.watcher_id": "records.watches",
        "signup_code.created_by": "records.signupCodes",
        "suspension.user_id": "suspension",
        "suspension.by_handle": "suspension.by (the operator who suspended it)",
        "suspension.with_owner": "suspension (a bot's own row names the owner it was suspended with)",
        "message.via_username": "hook_posts[].via (the name a hook's post gave itself, not an account)",
        "node_session.user_id": "left out: which node holds a connection of the account, while it is open (PostgreSQL)",
        "mention.user_id": "left out: an index of other people's messages that name the account",
        "chat.user_low": "memberships (a direct chat's two people)",
        "chat.user_high": "memberships (a direct chat's two people)",
        "chat.last_sender_id": "messages (the chat list's copy of its newest message)",
        "chat.topic_set_by": "left out: a group's topic and who set it are the group's, shown to every member",
        "event_recipient.user_id": "left out: who a recent event goes to, kept only for clients that resume",
        "audit.actor": "left out: the operators' log of what they did",
        "server_ban.by_handle": "left out: the operators' bans, by pattern",
    ]
}
