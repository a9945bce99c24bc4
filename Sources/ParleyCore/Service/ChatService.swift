public import Foundation

/// Everything one client connection can do, signed out or signed in.
///
/// The embedded engine (`ChatEngine.connect()`) and the remote client both conform, so
/// the shell and the bots never know which one they talk to. A connection starts signed
/// out; `register`, `signIn` or `resume` sign it in, and from then on `events` carries
/// what happens in the user's chats.
///
/// ```swift
/// let alice = engine.connect()
/// try await alice.signIn(login: "alice@example.com", password: "correct horse")
/// let message = try await alice.sendMessage(to: .user(bob.id), text: "hi", clientID: nil)
/// ```
public protocol ChatService: AnyObject, Sendable {
    /// Live events for the signed-in user, in order. One consumer per connection.
    var events: AsyncStream<ChatEvent> { get }

    // Accounts and sessions
    func register(_ registration: Registration) async throws -> SignedIn
    /// Signs in with an email address or `@handle` and a password.
    func signIn(login: String, password: String) async throws -> SignedIn
    /// Signs back in with the token of an earlier sign-in.
    func resume(token: String) async throws -> SignedIn
    /// Sends a 6-digit sign-in code to a phone number (E.164; spaces and dashes are
    /// fine). Codes last 5 minutes; sending is rate limited per number and per client.
    func requestCode(phone: String) async throws -> CodeRequest
    /// Signs in with the code sent to `phone`. The first sign-in creates the account,
    /// which then needs a display name (`needsProfile`) before anything else.
    func signIn(phone: String, code: String) async throws -> SignedIn
    /// Signs in with an OpenID Connect ID token from the identity provider the engine
    /// trusts. The account is found by issuer and subject, linked to the account with
    /// the token's email only when the provider marks it verified, or else created.
    func signIn(idToken: String) async throws -> SignedIn
    /// Revokes this session's token and signs the connection out.
    func signOut() async throws
    /// Changes the password and revokes every other session of the user.
    func changePassword(current: String, new: String) async throws
    func me() async throws -> User
    /// Makes a bot account that belongs to the signed-in user (not a bot), who may have
    /// up to `Limits.maxBotsPerOwner`. Works whatever the server's registration mode.
    func createBot(_ bot: NewBot) async throws -> User
    /// The bot accounts the signed-in user owns.
    func bots() async throws -> [User]
    /// A sign-up code for a server that registers by invitation (server admins only).
    func createSignupCode(maxUses: Int?, expiresIn: Duration?) async throws -> SignupCode
    /// The sign-up codes that can still be used (server admins only).
    func signupCodes() async throws -> [SignupCode]
    func revokeSignupCode(_ code: String) async throws
    func updateProfile(displayName: String) async throws -> User
    /// Marks the user away (nil message: "away") until `back()` or
    /// their next message; contacts see it, and so does whoever sends them a direct
    /// message (once per away period).
    func setAway(_ message: String?) async throws
    /// Back from away.
    func back() async throws
    /// Hides (or shows again) when the user was last around; one who hides sees nobody's.
    func hideActivity(_ hidden: Bool) async throws
    /// How many messages of each chat the user's IRC clients that do not page history
    /// themselves are played back when they connect: nil for the server's bound, 0 for
    /// none. The server's bound still caps it.
    func ircPlayback() async throws -> Int?
    /// Sets that (nil: back to the server's bound).
    func setIRCPlayback(_ limit: Int?) async throws
    /// When a user joined, last signed in and was last seen, and whether they are
    /// online or away now.
    func activity(of user: UserID) async throws -> UserActivity
    /// The user's open sessions.
    func sessions() async throws -> [SessionInfo]
    /// Ends one of the user's sessions by its id, its live connection included.
    func revokeSession(_ id: String) async throws

    // People
    func searchUsers(_ query: String, limit: Int, offset: Int) async throws -> [User]
    func user(handle: String) async throws -> User

    // Messages
    /// Stores a message and returns it once committed. Sending to a user creates the
    /// direct chat on the first message. The same `clientID` from the same user returns
    /// the original message instead of storing a second one. `via` names the plugin
    /// sending it for the user, if one is (`Message.via`). With `replyTo`, the message
    /// answers that message of the same chat. `@handle` mentions a member, and `@all`
    /// or `@here` every member of a group (owner and admins, unless the group lets anyone).
    func sendMessage(to recipient: Recipient, text: String, clientID: String?, via: String?, replyTo: Int64?) async throws -> Message
    /// Sends texts in order, as that many `sendMessage` calls would, and stops at the
    /// first that fails. The engine commits a batch in one transaction.
    func sendMessages(_ batch: [OutgoingText]) async -> SentBatch
    /// The latest `limit` messages, or the `limit` before sequence number `before`, oldest first.
    func history(chat: ChatID, limit: Int, before: Int64?) async throws -> [Message]
    /// Messages in the user's chats matching all the words and every filter, newest
    /// first, each with the context it asked for.
    func search(_ search: MessageSearch) async throws -> [SearchHit]
    /// Moves the user's read marker forward to `seq` (never backwards) and returns it.
    func markRead(chat: ChatID, upTo seq: Int64) async throws -> ReadMarker
    /// The members whose read marker is at or past `seq`, other than its sender.
    func seenBy(chat: ChatID, seq: Int64) async throws -> [ReadMarker]
    /// Replaces the text of the user's own message (within the server's edit window).
    /// It keeps its number and shows as edited; members get `message_edited`.
    func editMessage(chat: ChatID, seq: Int64, text: String) async throws -> Message
    /// Deletes a message: the user's own (within the delete window), or anyone's in a
    /// group the user owns or administers. It stays as a tombstone without text or
    /// media, and its media is served no more; members get `message_deleted`.
    func deleteMessage(chat: ChatID, seq: Int64) async throws -> Message
    /// Adds the user's reaction to a message (once per emoji; at most
    /// `Limits.maxReactionsPerMessage` different emoji per message) and returns its counts.
    func react(chat: ChatID, seq: Int64, emoji: String) async throws -> [ReactionCount]
    /// Takes the user's reaction back and returns the counts.
    func unreact(chat: ChatID, seq: Int64, emoji: String) async throws -> [ReactionCount]
    /// Recent messages that mention the user, newest first.
    func mentions(limit: Int) async throws -> [Message]
    /// Tells the chat's other members the user is typing (at most one event every
    /// few seconds; never stored).
    func typing(in chat: ChatID) async throws

    // Media
    /// Uploads an image, video or any other file from a local file and returns it,
    /// ready for `sendMedia` or `setAvatar`. With `kind` image or video, other bytes are
    /// refused; with `file` (or nil) any bytes are taken, and the bytes decide the kind.
    /// With `recipient`, the upload is refused at once if the user could not send
    /// there. Nothing is stored for a refused file.
    func uploadMedia(from file: URL, kind: MediaKind?, for recipient: Recipient?, progress: TransferProgress?) async throws -> MediaInfo
    /// Sends uploaded media as an `image`, `video` or `file` message with an optional
    /// caption, and for a file the name it goes by (`MediaInfo.name`). `via` as for
    /// `sendMessage`: the plugin that sends it for its user.
    func sendMedia(to recipient: Recipient, media: String, caption: String, name: String?, clientID: String?, via: String?) async throws
        -> Message
    /// Writes the media's original bytes to `file` (never a half-written file there;
    /// an existing file only with `replace`) and returns how many bytes it wrote.
    @discardableResult
    func downloadMedia(_ id: String, to file: URL, replace: Bool, progress: TransferProgress?) async throws -> Int64
    /// Sets the user's avatar to an uploaded image (nil removes it).
    func setAvatar(_ media: String?) async throws -> User

    // Chats
    /// The user's chat list, most recent activity first, with unread counts.
    func chats() async throws -> [ChatSummary]
    func chat(_ id: ChatID) async throws -> Chat
    /// The direct chat with a user, if a message has ever been sent between them.
    func directChat(with user: UserID) async throws -> Chat?
    /// Removes a chat from the user's list and clears their history of it; the chat
    /// comes back when a new message arrives. Other members keep theirs.
    func deleteChat(_ chat: ChatID) async throws

    // Groups
    func createGroup(handle: String, title: String?, isPublic: Bool) async throws -> Chat
    func group(handle: String) async throws -> Chat
    /// Joins a public group by handle, with its key if it has one.
    func joinGroup(handle: String, key: String?) async throws -> Chat
    /// Joins a group with an invite code or a `parley://join/CODE` link.
    func join(invite codeOrLink: String) async throws -> Chat
    /// Adds a user to a group at once (any member of a public group; a private one
    /// takes an owner or admin).
    func invite(user: UserID, to chat: ChatID) async throws
    /// Invites a user to join a group, as IRC's INVITE does: they get `invited`, and for
    /// a day may join it by handle even when it is private, keyed or full (never when
    /// banned). Members may invite to a public group; a private, keyed or full one takes
    /// an owner or admin. Returns the invitation, a code only the invitee can use.
    func sendInvite(to user: UserID, chat: ChatID) async throws -> Invite
    /// The invitations sent to the user that still let them join, newest first.
    func invitations() async throws -> [InviteNotice]
    func createInvite(chat: ChatID, maxUses: Int?, expiresIn: Duration?) async throws -> Invite
    func revokeInvite(code: String) async throws
    func leave(chat: ChatID) async throws
    func members(chat: ChatID) async throws -> [Member]
    func kick(user: UserID, from chat: ChatID) async throws
    func setRole(_ role: Role, for user: UserID, in chat: ChatID) async throws
    /// Sets a group's topic (nil or empty clears it): owner and admins, or every member
    /// when the group allows it. Members get `chat_updated`.
    func setTopic(_ topic: String?, in chat: ChatID) async throws -> Chat
    /// Changes a group's rules: who may set the topic, mention everyone and post;
    /// public or private; a member limit; a key (owner and admins only).
    func setGroupRules(in chat: ChatID, _ change: GroupRulesChange) async throws -> Chat
    /// Bans a handle from a group (removing its user if they are in it): nobody under
    /// it can join or be invited until unbanned, whether or not it is taken yet, as IRC
    /// bans a nick (owner and admins).
    func ban(handle: String, from chat: ChatID) async throws
    func unban(handle: String, from chat: ChatID) async throws
    /// The handles banned from a group, oldest first (members see the list).
    func bans(in chat: ChatID) async throws -> [String]
    /// The groups the user is a member of.
    func groups() async throws -> [Chat]
    /// The directory of public groups whose handle starts with `prefix`, by handle,
    /// with their member counts.
    func publicGroups(_ prefix: String, limit: Int, offset: Int) async throws -> [GroupListing]

    // Presence
    /// Says which chat this session is looking at (nil: none).
    func setViewing(_ chat: ChatID?) async throws
    /// The group's members who are online, and whether each is viewing it.
    func online(in chat: ChatID) async throws -> [PresenceEntry]

    /// Ends the connection: its presence goes, its event stream finishes. The session
    /// token stays valid (use `signOut` to revoke it).
    // Bot tokens (a bot's owner)
    /// Makes a token for a bot the user owns, named (1–32 characters) to tell it apart.
    func createBotToken(for bot: UserID, name: String) async throws -> CreatedBotToken
    func botTokens(for bot: UserID) async throws -> [BotToken]
    /// Revokes a token: the connections it opened end at once, on every node.
    func revokeBotToken(_ id: Int64, of bot: UserID) async throws
    /// Signs in as the bot a token belongs to.
    func signIn(botToken: String) async throws -> SignedIn

    // Reminders
    /// Sets a reminder for `due` (from now to 366 days ahead), in `chat` if given: told to
    /// this user alone when it comes due, or when one of their clients next connects.
    func remind(_ text: String, at due: Date, in chat: ChatID?) async throws -> Reminder
    /// The user's pending reminders, soonest first.
    func reminders() async throws -> [Reminder]
    func cancelReminder(_ id: Int64) async throws

    // Ignoring
    /// Stops a user's messages, mentions, invites and direct messages reaching this
    /// user, on every client; returns whom.
    func ignore(_ user: UserID) async throws -> UserRef
    func unignore(_ user: UserID) async throws
    /// Whom the user ignores.
    func ignored() async throws -> [UserRef]
    /// What of a chat gets the user's attention (nil: the default); `ChatSummary.notify`.
    func setNotify(_ level: NotifyLevel?, in chat: ChatID) async throws

    // Reports to the server's operators
    /// Reports a message of a chat the user is in, with an optional reason.
    func report(chat: ChatID, seq: Int64, reason: String?) async throws -> Report
    /// The reports queue, newest first (server admins).
    func reports(includingResolved: Bool) async throws -> [Report]
    /// Resolves an open report with a note (server admins).
    func resolveReport(_ id: Int64, note: String?) async throws -> Report

    // Export and erasure
    /// What the server holds about the signed-in account (`handle`: another's, for an
    /// operator), with the first page of its messages, or only the page after `after`.
    func exportAccount(handle: String?, after: Int64?) async throws -> AccountExport
    /// Deletes the signed-in account for good, proven with its password (nil: it has none).
    func deleteAccount(password: String?) async throws
    /// An operator erases an account.
    func eraseAccount(handle: String, reason: String?) async throws

    // The server's operators (`--admin`)
    /// Suspends an account and its bots: their sessions end, sign-in is refused.
    func suspend(handle: String, reason: String) async throws -> Suspension
    /// Lifts a suspension (and its bots'); who was reinstated.
    func reinstate(handle: String) async throws -> [UserRef]
    func suspensions() async throws -> [Suspension]
    /// Bans `@handle`, a handle pattern or an address range server-wide, for `duration` or for good.
    func banServer(_ target: String, reason: String?, duration: Duration?) async throws -> ServerBan
    /// Lifts a server ban named by its id or its target.
    func unbanServer(_ target: String) async throws -> ServerBan
    func serverBans() async throws -> [ServerBan]
    /// Deletes what an account sent between two times (nil: no bound), media too.
    func redact(handle: String, from: Date?, to: Date?, reason: String?) async throws -> Redaction
    /// Ends every session of an account, on every node, saying why (IRC's KILL); it may
    /// sign in again.
    func disconnect(handle: String, reason: String?) async throws
    /// A notice from the operators to everyone connected (IRC's WALLOPS).
    func wallops(_ text: String) async throws
    /// The audit log, newest first (operators: all of it; a group's owner and admins: the group's).
    func audit(chat: ChatID?, actor: String?, before: Int64?, limit: Int) async throws -> [AuditEntry]

    // Bots' chat commands
    /// A bot declares the commands it answers in chats (`!NAME`), replacing what it
    /// declared before; only a bot account may.
    func setBotCommands(_ commands: [ChatCommand]) async throws
    /// The commands of the bots in a chat the user is in.
    func chatCommands(in chat: ChatID) async throws -> [BotCommands]

    // Incoming webhooks (a group's owner and admins)
    /// Makes a hook: a secret URL (`CreatedHook.path`, shown this once) that posts in the
    /// group as the hook. With `signingSecret`, posts must carry GitHub's signature.
    func createHook(in chat: ChatID, name: String, signingSecret: String?) async throws -> CreatedHook
    /// Makes an outgoing hook: group messages that start with `trigger` (`!deploy`), or
    /// say `@NAME` (`mention`), are posted to `url`; its answer's `text` comes back as the
    /// hook's reply. The calls' signing secret is `CreatedHook.signingSecret`, shown once.
    func createOutgoingHook(in chat: ChatID, name: String, url: String, trigger: String) async throws -> CreatedHook
    func hooks(in chat: ChatID) async throws -> [Hook]
    /// Revokes a hook: its URL answers as an unknown one from then on.
    func revokeHook(_ id: Int64, in chat: ChatID) async throws

    func close() async
}

extension ChatService {
    /// A message the user sends themself.
    public func sendMessage(to recipient: Recipient, text: String, clientID: String?) async throws -> Message {
        try await sendMessage(to: recipient, text: text, clientID: clientID, via: nil)
    }

    public func sendMessage(to recipient: Recipient, text: String, clientID: String?, via: String?) async throws -> Message {
        try await sendMessage(to: recipient, text: text, clientID: clientID, via: via, replyTo: nil)
    }

    public func sendMedia(to recipient: Recipient, media: String, caption: String, clientID: String?) async throws -> Message {
        try await sendMedia(to: recipient, media: media, caption: caption, name: nil, clientID: clientID, via: nil)
    }

    public func sendMedia(to recipient: Recipient, media: String, caption: String, clientID: String?, via: String?) async throws -> Message
    {
        try await sendMedia(to: recipient, media: media, caption: caption, name: nil, clientID: clientID, via: via)
    }

    /// A message answering message `seq` of the same chat.
    public func reply(to seq: Int64, in chat: ChatID, text: String, clientID: String?, via: String? = nil) async throws -> Message {
        try await sendMessage(to: .chat(chat), text: text, clientID: clientID, via: via, replyTo: seq)
    }

    /// Messages in the user's chats matching all `words`, newest first, without context.
    public func search(_ words: String, in chat: ChatID?, limit: Int) async throws -> [Message] {
        try await search(MessageSearch(words: words, chat: chat, limit: limit)).map(\.message)
    }

    public func joinGroup(handle: String) async throws -> Chat {
        try await joinGroup(handle: handle, key: nil)
    }

    public func setGroupRules(in chat: ChatID, anyoneSetsTopic: Bool?, anyoneMentionsAll: Bool?) async throws -> Chat {
        try await setGroupRules(in: chat, GroupRulesChange(anyoneSetsTopic: anyoneSetsTopic, anyoneMentionsAll: anyoneMentionsAll))
    }

    /// One `sendMessage` after another.
    public func sendMessages(_ batch: [OutgoingText]) async -> SentBatch {
        var sent: [Message] = []
        for item in batch {
            do {
                sent.append(
                    try await sendMessage(
                        to: item.recipient, text: item.text, clientID: item.clientID, via: item.via, replyTo: item.replyTo))
            } catch {
                return SentBatch(sent: sent, failure: ParleyError(error))
            }
        }
        return SentBatch(sent: sent, failure: nil)
    }
}
