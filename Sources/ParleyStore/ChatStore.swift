public import Foundation
public import ParleyCore

/// Storage for everything the engine knows. It keeps data consistent (one direct chat
/// per pair, gap-free sequence numbers, one message per client id) but decides nothing
/// about who may do what: that is `ChatEngine`'s job.
///
/// `SQLiteChatStore` is the implementation on one machine. Presence watches are
/// declared in `PresenceWatchStore`.
public protocol ChatStore: PresenceWatchStore {
    // Users
    /// Creates an account; throws `email_taken` or `handle_taken`.
    func createUser(_ user: NewUser) async throws -> User
    func user(id: UserID) async throws -> User?
    func user(handle: String) async throws -> User?
    func users(ids: [UserID]) async throws -> [User]
    /// The account and its password hash for an email or handle.
    func credentials(for login: Login) async throws -> (user: User, passwordHash: String?)?
    func passwordHash(of user: UserID) async throws -> String?
    func setPasswordHash(_ hash: String, of user: UserID) async throws
    func setDisplayName(_ name: String, of user: UserID) async throws -> User
    /// Records a sign-in at `time`, which is also when the user was last seen.
    func recordLogin(of user: UserID, at time: Date) async throws
    /// Frees a guest's handle for others (it becomes `handle~id`; what the guest said
    /// keeps its display name): true when `user` is a guest, false for any other account,
    /// which is left alone.
    func retireGuest(_ user: UserID) async throws -> Bool

    /// Gives a guest another handle (and the display name that goes with it): false for
    /// an account that is not a guest; `handleTaken` when another account holds it.
    func renameGuest(_ user: UserID, to handle: String, displayName: String) async throws -> Bool
    /// Marks a guest as a bot (IRC's user mode +B): false for an account that is not a
    /// guest, which is left alone (bot accounts are made by their owners).
    func markGuestAsBot(_ user: UserID) async throws -> Bool
    func handleExists(_ handle: String) async throws -> Bool
    /// Users whose handle or display name (any word) starts with `prefix`, or whose
    /// email is `prefix` as a whole (so addresses cannot be enumerated), by handle.
    func searchUsers(prefix: String, limit: Int, offset: Int) async throws -> [User]

    // Sessions
    func createSession(tokenHash: Data, user: UserID, expiresAt: Date, client: String, address: String, at time: Date) async throws
    /// The user of a session that has not expired by `now`, and when it expires.
    func sessionUser(tokenHash: Data, now: Date) async throws -> (user: UserID, expiresAt: Date)?
    func deleteSession(tokenHash: Data) async throws
    func deleteSessions(of user: UserID, except tokenHash: Data?) async throws
    /// The user's sessions that have not expired by `now`, oldest first.
    func sessions(of user: UserID, now: Date) async throws -> [StoredSession]
    /// Records that a session was used at `time`.
    func touchSession(tokenHash: Data, at time: Date) async throws
    /// Deletes sessions and phone codes that expired before `now`; returns how many went.
    func purgeExpired(now: Date) async throws -> Int

    // Chats and members
    func chat(id: ChatID) async throws -> Chat?
    func group(handle: String) async throws -> Chat?
    func directChat(between first: UserID, and second: UserID) async throws -> Chat?
    /// Returns the pair's direct chat, creating it (with both as members) if needed.
    func openDirectChat(between first: UserID, and second: UserID, at time: Date) async throws -> (chat: Chat, created: Bool)
    /// Creates a group with `owner` as its owner; throws `handle_taken`.
    func createGroup(handle: String, title: String?, isPublic: Bool, owner: UserID, at time: Date) async throws -> Chat
    func membership(of user: UserID, in chat: ChatID) async throws -> Membership?
    func members(of chat: ChatID) async throws -> [Member]
    /// Adds a member; false when they already were one.
    func addMember(_ user: UserID, to chat: ChatID, role: Role, at time: Date) async throws -> Bool
    /// Removes a member, optionally making someone else owner in the same transaction.
    func removeMember(_ user: UserID, from chat: ChatID, newOwner: UserID?) async throws -> Bool
    func setRole(_ role: Role, of user: UserID, in chat: ChatID) async throws
    func groups(of user: UserID) async throws -> [Chat]
    func chatIDs(of user: UserID) async throws -> [ChatID]
    func chatList(for user: UserID) async throws -> [ChatSummary]
    /// Hides the chat from the user's list and clears their history up to now.
    func hideChat(_ chat: ChatID, for user: UserID, at time: Date) async throws

    // Activity
    /// Records that the user was around at `time`.
    func recordSeen(_ user: UserID, at time: Date) async throws
    func activity(of user: UserID) async throws -> StoredActivity?
    func setActivityHidden(_ hidden: Bool, of user: UserID) async throws
    /// The user's own bound on messages an IRC client is played back per chat (nil:
    /// the server's; 0: none).
    func ircPlayback(of user: UserID) async throws -> Int?
    func setIRCPlayback(_ limit: Int?, of user: UserID) async throws
    /// Sets (or with nil clears) the user's away message; returns whether it changed.
    func setAway(_ message: String?, of user: UserID) async throws -> Bool
    /// The away messages of those of `users` who are away.
    func away(of users: [UserID]) async throws -> [UserID: String]

    // Groups' topics and rules
    /// Sets a group's topic, noting who set it (a handle) and when.
    func setTopic(_ topic: String?, of chat: ChatID, by handle: String, at time: Date) async throws -> Chat?
    func setGroupRules(of chat: ChatID, _ change: GroupRulesChange) async throws -> Chat?
    /// The key joining `chat` by handle needs (nil: none).
    func joinKey(of chat: ChatID) async throws -> String?
    /// Public groups whose handle starts with `prefix`, by handle, with member counts.
    func publicGroups(prefix: String, limit: Int, offset: Int) async throws -> [GroupListing]
    /// Bans or unbans a handle (as `Limits.userHandle` gives it) from `chat`; true when
    /// that changed something.
    func setBan(_ handle: String, in chat: ChatID, banned: Bool, at time: Date) async throws -> Bool
    func isBanned(_ handle: String, in chat: ChatID) async throws -> Bool
    func bans(of chat: ChatID) async throws -> [String]

    // Messages
    /// Stores a message after checking the sender is a member; committed before it
    /// returns. A known (sender, client id) returns the stored message instead, with
    /// `created` false.
    func append(_ message: NewMessage) async throws -> (message: Message, created: Bool)
    /// Stores messages in order, as that many `append` calls would, in one commit.
    /// It stops at the first message a rule refuses and returns that refusal with the
    /// messages stored before it; a database error throws and stores none.
    func append(_ messages: [NewMessage]) async throws -> (stored: [(message: Message, created: Bool)], failure: ParleyError?)
    /// Up to `limit` messages with `after < seq < before`, oldest first.
    func history(chat: ChatID, after: Int64, before: Int64?, limit: Int) async throws -> [Message]
    func message(chat: ChatID, seq: Int64) async throws -> Message?
    /// Messages in chats `user` belongs to (in the part of their history they have not
    /// cleared, and not deleted) that contain every term of `query` and pass its
    /// filters, newest first.
    func search(_ query: SearchQuery, user: UserID, limit: Int) async throws -> [Message]
    /// Moves the marker forward to `min(seq, last seq)`; returns the marker as it now stands.
    func markRead(chat: ChatID, user: UserID, seq: Int64, at time: Date) async throws -> (marker: ReadMarker, moved: Bool)
    /// Moves the member's read position forward to `limit` as a time (never back), and
    /// their read marker to the last message sent by then.
    func markRead(chat: ChatID, user: UserID, upTo limit: Date, at time: Date) async throws -> (marker: ReadMarker, moved: Bool)
    /// The member's read marker, nil for one who is not a member.
    func readMarker(chat: ChatID, user: UserID) async throws -> ReadMarker?
    /// Read markers at or past `seq`.
    func readers(chat: ChatID, atLeast seq: Int64) async throws -> [ReadMarker]
    /// Replaces a message's text and marks it edited at `time`; its mentions stay as
    /// sent. Returns the message as it now reads (nil: no such message).
    func editMessage(chat: ChatID, seq: Int64, text: String, at time: Date) async throws -> Message?
    /// Makes a message a tombstone at `time`: its text, media, mentions and reactions
    /// go, search and the chat list no longer show them, and media that no other
    /// message and no avatar uses is no longer its uploader's. Returns the tombstone.
    func deleteMessage(chat: ChatID, seq: Int64, at time: Date) async throws -> Message?
    /// Adds or takes back `user`'s `emoji` on a message, atomically. Adding a new emoji
    /// to a message that already has `cap` different ones changes nothing and returns
    /// nil. Otherwise returns whether anything changed and the message's counts.
    func react(chat: ChatID, seq: Int64, user: UserID, emoji: String, add: Bool, cap: Int, at time: Date) async throws
        -> (changed: Bool, reactions: [ReactionCount])?
    /// Messages that mention `user` by handle or mention everyone in a chat of theirs
    /// (in the part of their history they have not cleared), newest first.
    func mentions(of user: UserID, limit: Int) async throws -> [Message]

    // Media
    /// Records an upload: the media (once per content) and who uploaded it.
    func recordMedia(_ media: MediaInfo, uploader: UserID, at time: Date) async throws
    func media(id: String) async throws -> MediaInfo?
    /// Whether the media is someone's avatar.
    func isAvatar(media id: String) async throws -> Bool
    /// The newest message carrying the media in each of `chats` that has one: chat and
    /// sequence number.
    func newestMessages(carrying media: String, in chats: [ChatID]) async throws -> [ChatID: Int64]
    /// Whether `user` uploaded the media themselves.
    func hasUploaded(media id: String, user: UserID) async throws -> Bool
    func setAvatar(_ media: String?, of user: UserID) async throws -> User
    /// Forgets media recorded before `time` that no message and no avatar uses, and
    /// returns their ids so their bytes can go too.
    func forgetUnusedMedia(recordedBefore time: Date) async throws -> [String]

    // External identities
    func user(issuer: String, subject: String) async throws -> User?
    func linkIdentity(issuer: String, subject: String, to user: UserID, at time: Date) async throws

    // Phone sign-in
    func user(phone: String) async throws -> User?
    /// How many codes were requested since `time` for the number and from the address,
    /// and when the number's last one was.
    func codeRequests(phone: String, address: String, since time: Date) async throws -> CodeRequestCounts
    /// Replaces the number's code (only the newest one counts) and records the request.
    func saveCode(phone: String, codeHash: Data, expiresAt: Date, attempts: Int, address: String, at time: Date) async throws
    /// Checks a code against the number's, atomically: a match uses it up, a miss
    /// spends an attempt.
    func checkCode(phone: String, codeHash: Data, now: Date) async throws -> CodeCheck

    // Invites
    func createInvite(_ invite: Invite, at time: Date) async throws
    func invite(code: String) async throws -> Invite?
    /// The newest invitation sent to `user` for `chat` with uses left and not revoked
    /// (the engine checks its expiry).
    func personalInvite(to chat: ChatID, for user: UserID) async throws -> Invite?
    /// Every such invitation sent to `user`, newest first, at most `limit`.
    func personalInvites(for user: UserID, limit: Int) async throws -> [Invite]
    /// Adds `user` to the invite's group and takes one of its uses, atomically. The
    /// engine has checked the invite's rules; if its last use went meanwhile (or it was
    /// revoked), nothing changes and `inviteUsedUp` is thrown. Returns false, taking no
    /// use, when `user` is already a member.
    func useInvite(code: String, user: UserID, at time: Date) async throws -> Bool
    func revokeInvite(code: String) async throws

    // Sign-up codes and bot owners
    func createSignupCode(_ code: SignupCode) async throws
    func signupCode(_ code: String) async throws -> SignupCode?
    /// The codes not revoked, not expired at `now` and not used up, newest first.
    func signupCodes(usableAt now: Date) async throws -> [SignupCode]
    func revokeSignupCode(_ code: String) async throws
    func bots(ownedBy owner: UserID) async throws -> [User]

    // Bot tokens
    func createBotToken(bot: UserID, name: String, tokenHash: Data, at time: Date) async throws -> BotToken
    /// A bot's tokens, oldest first.
    func botTokens(of bot: UserID) async throws -> [BotToken]
    func botToken(tokenHash: Data) async throws -> BotToken?
    /// Deletes a token of `bot` and the sessions it opened; returns their token hashes,
    /// or nil when the bot has no such token.
    func deleteBotToken(_ id: Int64, of bot: UserID) async throws -> [Data]?
    /// Marks a session as opened with a token, and the token as used at `time`.
    func sessionOpened(tokenHash: Data, withBotToken id: Int64, at time: Date) async throws

    // Bots' chat commands
    /// Replaces what a bot declared.
    func setBotCommands(_ commands: [ChatCommand], of bot: UserID) async throws
    /// What a bot declared (empty when nothing).
    func botCommands(of bot: UserID) async throws -> [ChatCommand]
    /// The bots in a chat that declared commands, by handle.
    func botCommands(in chat: ChatID) async throws -> [BotCommands]

    // Reminders
    func createReminder(user: UserID, chat: ChatID?, place: String?, text: String, due: Date, at time: Date) async throws -> Reminder
    /// A user's reminders not yet come due, soonest first.
    func pendingReminders(of user: UserID) async throws -> [Reminder]
    /// Deletes a pending reminder of `user`; false when there is none with that id.
    func deleteReminder(_ id: Int64, of user: UserID) async throws -> Bool
    /// When the soonest pending reminder comes due.
    func nextReminderDue() async throws -> Date?
    /// Marks up to `limit` reminders due by `now` as fired, each once even with several
    /// nodes, and returns them with their users.
    func fireReminders(dueBy now: Date, limit: Int) async throws -> [(user: UserID, reminder: Reminder)]
    /// Marks fired reminders as told to their users.
    func remindersDelivered(_ ids: [Int64]) async throws
    /// Takes a user's fired reminders not yet told (marking them told), oldest first.
    func takeUndeliveredReminders(of user: UserID) async throws -> [Reminder]

    /// Sets a member's notification level for a chat (nil: the default); false when
    /// they are not a member.
    func setNotify(_ level: NotifyLevel?, user: UserID, chat: ChatID) async throws -> Bool

    // Ignoring
    /// Starts (`on`) or stops ignoring `target`; false when nothing changed.
    func setIgnore(_ on: Bool, user: UserID, target: UserID, at time: Date) async throws -> Bool
    /// Whom a user ignores, by handle.
    func ignored(by user: UserID) async throws -> [UserRef]
    /// Who ignores `sender`.
    func ignorers(of sender: UserID) async throws -> [UserID]
    /// Per chat of the user's, the messages past their read marker sent by someone they
    /// ignore, and how many of those mention them (by handle or everyone): the chat
    /// list leaves them out of its counts.
    func unreadFromIgnored(by user: UserID) async throws -> [ChatID: UnreadCount]

    // Reports to the operators
    /// Keeps a report; a reporter's open report of the same message is returned instead.
    func createReport(_ report: Report) async throws -> Report
    /// Open reports (or all, newest first, with `resolved`), up to `limit`.
    func reports(includingResolved: Bool, limit: Int) async throws -> [Report]
    /// A reporter's open reports.
    func openReports(by reporter: UserID) async throws -> Int
    /// Marks an open report resolved; nil when there is no open report with that id.
    func resolveReport(_ id: Int64, by operatorHandle: String, note: String?, at time: Date) async throws -> Report?

    // The operators: suspensions, server-wide bans, the audit log
    /// Suspends accounts (replacing an earlier suspension of the same account).
    func suspend(_ suspensions: [Suspension]) async throws
    func suspension(of user: UserID) async throws -> Suspension?
    func suspensions() async throws -> [Suspension]
    /// Lifts the suspension of `user` and of the bots suspended with it; the accounts freed.
    func reinstate(_ user: UserID) async throws -> [UserID]
    /// Keeps a ban; one of the same kind and pattern is replaced.
    func addServerBan(_ ban: ServerBan) async throws -> ServerBan
    func serverBans() async throws -> [ServerBan]
    /// Removes a ban; nil when there is none with that id.
    func removeServerBan(_ id: Int64) async throws -> ServerBan?
    func appendAudit(_ entry: AuditEntry) async throws
    /// The newest entries first, of one group or all, by one actor or any.
    func audit(chat: ChatID?, actor: String?, before: Int64?, limit: Int) async throws -> [AuditEntry]
    /// The live (not deleted) messages a user sent between two times, oldest first, after
    /// message id `after`: (chat, seq, id).
    func sentMessages(by sender: UserID, from: Date?, to: Date?, after: Int64, limit: Int) async throws
        -> [(chat: ChatID, seq: Int64, id: Int64, hasMedia: Bool)]

    // Erasure
    /// Erases an account: its profile, email, phone, password, sessions, tokens, links,
    /// reminders and uploads go; its messages lose their media, or are deleted with
    /// `deleteMessages`; its handle is renamed and the old one held until `until` (no new
    /// account nor guest may take it). Returns the media ids no one uses any more.
    func eraseAccount(_ user: UserID, deleteMessages: Bool, holdHandleUntil until: Date, at time: Date) async throws -> [String]
    /// For an export: the account's phone, the live messages it sent after message id
    /// `after` (oldest first), its reactions and the media it uploaded.
    func phone(of user: UserID) async throws -> String?
    func messagesSent(by user: UserID, after id: Int64, limit: Int) async throws -> [Message]
    func reactions(by user: UserID, limit: Int) async throws -> [AccountExport.Reaction]
    func uploads(by user: UserID, limit: Int) async throws -> [String]
    /// The rest of what an export holds of `user` (reminders, reports filed, hooks made,
    /// identities, watches, invites, sign-up codes), each list at most `limit` long.
    func accountRecords(of user: UserID, limit: Int) async throws -> AccountExport.Records
    /// Whether an erased account's handle is held at `time`.
    func isHandleHeld(_ handle: String, at time: Date) async throws -> Bool

    // Retention
    /// Deletes up to `limit` of the oldest messages sent before `cutoff` (of one chat, or
    /// of all in the order they were stored), with their mentions, reactions, search
    /// entries and media grants; how many went, and how many had media.
    func expireMessages(sentBefore cutoff: Date, in chat: ChatID?, limit: Int, at time: Date) async throws -> (messages: Int, media: Int)
    /// The groups with a retention policy of their own, and its days.
    func retentionPolicies() async throws -> [(chat: ChatID, days: Int)]

    // Incoming webhooks
    func createHook(
        chat: ChatID, name: String, tokenHash: Data, signingSecret: String?, by user: UserID, at time: Date, url: String?, trigger: String?
    ) async throws -> Hook
    /// A group's outgoing hooks, with the secrets their calls are signed with.
    func outgoingHooks(of chat: ChatID) async throws -> [(hook: Hook, signingSecret: String)]
    func hookFailed(_ id: Int64, error: String, at time: Date) async throws
    /// A group's hooks, oldest first.
    func hooks(of chat: ChatID) async throws -> [Hook]
    /// The hook whose token hashes to `tokenHash`, with its signing secret.
    func hook(tokenHash: Data) async throws -> (hook: Hook, signingSecret: String?)?
    /// Deletes a hook of `chat`; false when it has no such hook.
    func deleteHook(_ id: Int64, in chat: ChatID) async throws -> Bool
    func hookUsed(_ id: Int64, at time: Date) async throws
}

extension ChatStore {
    /// One message, as a batch of one.
    public func append(_ message: NewMessage) async throws -> (message: Message, created: Bool) {
        let outcome = try await append([message])
        if let failure = outcome.failure { throw failure }
        guard let stored = outcome.stored.first else { throw ParleyError(.internalError, "a message was neither stored nor refused") }
        return stored
    }
}
