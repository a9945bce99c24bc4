public import Foundation
public import ParleyCore
public import ParleyLive
public import ParleyStore
import Synchronization

/// The one place where Parley's rules live. Each client connection gets its own
/// `EngineSession` (a `ChatService`) from `connect()`; the engine holds what they share:
/// the store, the event bus, the chat directory and the live sessions.
///
/// ```swift
/// let engine = try ChatEngine(store: SQLiteChatStore(path: "parley.sqlite"))
/// let alice = engine.connect()
/// _ = try await alice.register(Registration(email: "alice@example.com", password: "correct horse"))
/// ```
public final class ChatEngine: Sendable {
    public struct Configuration: Sendable {
        /// bcrypt cost; 12 in production, lower in tests.
        public var bcryptCost: UInt8 = 12
        public var sessionLifetime: Duration = .seconds(30 * 24 * 3600)
        /// The engine's clock, replaceable so tests can move time.
        public var now: @Sendable () -> Date = { Date() }
        /// The largest image and video accepted.
        public var mediaLimits = MediaLimits()
        /// How long an upload may wait for the message (or avatar) that uses it before
        /// `sweepMedia` removes it.
        public var unusedMediaGrace: Duration = .seconds(24 * 3600)
        /// Delivers sign-in codes; by default shows them on standard error (development).
        public var codeSender: any CodeSender = DevelopmentCodeSender { line in
            try? FileHandle.standardError.write(contentsOf: Data((line + "\n").utf8))
        }
        public var phoneCodes = PhoneCodeRules()
        /// The OpenID Connect provider whose ID tokens sign users in (nil: none).
        public var identityProvider: IdentityProvider?
        /// Limits on password guesses and sign-ups; nil (embedded use): none. A server
        /// facing the network sets them (`parley serve` does by default).
        public var signInLimits: SignInLimits?
        /// Chats whose members are kept in memory at most.
        public var cachedChats = 50_000
        /// Who may make an account (bots made by their owners aside).
        public var registration = RegistrationMode.open
        /// Handles of the server's admins, who make sign-up codes.
        public var admins: Set<String> = []
        /// Days the server keeps messages (nil: for good); a group may keep them less.
        public var retentionDays: Int?
        /// How often retention looks for messages past their time, and how many it
        /// deletes in one transaction.
        public var retentionInterval: Duration = .seconds(60)
        public var retentionBatch = 50
        /// The share of the store's write time a sweep may take (it rests for the rest).
        public var retentionShare = 0.25
        /// What becomes of an erased account's messages: kept, as from "Deleted user"
        /// (their media gone), or deleted.
        public var erasedMessages = ErasedMessages.keep
        /// How long an erased account's handle is held back from anyone else.
        public var handleHold: Duration = .seconds(30 * 86400)
        /// Other nodes change members in the same store (PostgreSQL shared by several
        /// servers): a member's rights are confirmed with the store before each request,
        /// since the cached copy learns of a change on another node a moment later.
        /// Sends need no confirming: the store refuses a non-member's message itself.
        public var membersChangeElsewhere = false
        /// How long after sending a user may edit a message (nil: any time).
        public var editWindow: Duration? = .seconds(24 * 3600)
        /// How long after sending a user may delete their own message (nil: any time).
        /// Owners and admins delete others' messages in their groups at any time.
        public var deleteWindow: Duration? = nil
        /// At most one typing event per user and chat in this time.
        public var typingInterval: Duration = .seconds(3)
        /// The shortest password a new account, bot or password change may have, in bytes
        /// (1...`Limits.maxPasswordBytes`).
        public var minPasswordBytes = Limits.minPasswordBytes
        /// Connections from one address that have not signed in, at most (WebSocket,
        /// HTTP and IRC together); 0: no limit. Enough for an office behind one NAT
        /// whose people connect at once; far too few to fill the connection cap.
        public var maxUnsignedPerAddress = 64
        /// Password checks (a sign-in, a sign-up, a password change: each a bcrypt
        /// hash) under way at once from one address, at most; 0: no limit. A crowd of
        /// them from one address would keep the server's cores from everyone else.
        public var maxPasswordChecksPerAddress = 8
        /// Posts a second one incoming webhook may make on this node, in bursts of four
        /// times as many; 0: no limit.
        public var hookRate = 5
        /// Makes outgoing hooks' calls (the server's HTTP client); nil: no outgoing hooks.
        public var outgoingHooks: (any OutgoingHookCaller)?
        /// Why an outgoing hook may not call this URL, from its text (nil: it may, if the
        /// caller's checks of its addresses pass too): the operator's to say
        /// (`--hook-allow`); none by default.
        public var outgoingHookRefusal: @Sendable (URL) -> String? = { _ in "the server's operator allows no outgoing hooks" }

        public init() {}
    }

    let store: any ChatStore
    let bus: any EventBus
    let configuration: Configuration
    let directory: ChatDirectory
    let registry = SessionRegistry()
    /// Wakes the reminder sweep when a reminder is set (ChatEngine+Reminders.swift).
    let reminderAlarm = ReminderAlarm()
    /// Who ignores whom, for delivery (EngineSession+Ignore.swift).
    let ignoreBook = IgnoreBook()
    /// The server-wide bans, for sign-ins and registrations (Operators/).
    let banBook = BanBook()
    let hasher: PasswordHasher
    let identity: IdentityVerifier?
    let throttle: SignInThrottle?
    /// Where media bytes go; nil: this engine takes no media.
    let blobs: (any BlobStore)?
    /// The order lines reach this node in (IRC's PING answers after all of them).
    public let arrivals = ArrivalOrder()
    /// Connections not signed in yet, per client address (`maxUnsignedPerAddress`).
    public let unsigned: AddressSlots
    /// Password checks under way, per client address (`maxPasswordChecksPerAddress`).
    let passwordChecks: AddressSlots
    /// Each user's comings and goings, published in the order they happened.
    let presenceOrder = PresenceSequencer()
    /// Sessions on other nodes; nil: this process is the only one.
    let presence: (any PresenceLedger)?
    /// Last seen times, typing, away: what the engine remembers between requests.
    let activity = ActivityTracker()
    /// Each incoming webhook's posting rate on this node (`hookRate`).
    let hookPace: KeyedPace<Int64>
    /// Each group's outgoing hooks, briefly remembered.
    let outgoingHookCache = OutgoingHookCache()
    private let nextSession = Atomic<Int>(0)

    public init(
        store: any ChatStore, blobs: (any BlobStore)? = nil, bus: any EventBus = InProcessEventBus(),
        presence: (any PresenceLedger)? = nil, configuration: Configuration = Configuration()
    ) {
        self.store = store
        self.blobs = blobs
        self.bus = bus
        self.presence = presence
        self.configuration = configuration
        self.directory = ChatDirectory(store: store, capacity: configuration.cachedChats)
        self.hasher = PasswordHasher(cost: configuration.bcryptCost)
        self.identity = configuration.identityProvider.map { IdentityVerifier(provider: $0) }
        self.throttle = configuration.signInLimits.map { SignInThrottle(limits: $0) }
        self.unsigned = AddressSlots(limit: configuration.maxUnsignedPerAddress)
        self.passwordChecks = AddressSlots(limit: configuration.maxPasswordChecksPerAddress)
        self.hookPace = KeyedPace(perSecond: configuration.hookRate, burst: Self.hookBurst(configuration.hookRate))
        // Membership changed on another node: what this one cached about the chat is stale.
        bus.onMembershipChange { [directory] chat in directory.invalidate(chat) }
        presence?.bind(to: self)
    }

    /// A session acting as `user` for something that is not a client of theirs (an
    /// incoming webhook, a request to the HTTP API): not online, no events, and not
    /// counted as their activity. It is dropped, never closed (closing a guest's would
    /// take them out of their groups).
    public func acting(as user: User, client: String) -> EngineSession {
        let session = EngineSession(engine: self, number: nextSession.add(1, ordering: .relaxed).newValue, address: "hook", client: client)
        session.state.withLock {
            $0.user = user
            $0.isActing = true
        }
        return session
    }

    /// A new, signed-out connection.
    public func connect(address: String = "local", client: String = "parley (embedded)") -> EngineSession {
        EngineSession(engine: self, number: nextSession.add(1, ordering: .relaxed).newValue, address: address, client: client)
    }

    /// A new, signed-out connection that hands each event with its position to
    /// `deliver` instead of a stream: called in order, from the task that publishes, so
    /// it must only queue the event (a server writes it to the socket's channel).
    /// `ended` is told when the session's token is revoked from elsewhere.
    /// `client` is how the program connecting names itself (a WebSocket's User-Agent).
    public func connect(
        address: String, client: String = "unknown", deliver: @escaping @Sendable (PositionedEvent) -> Void,
        ended: (@Sendable (ParleyError) -> Void)? = nil
    ) -> EngineSession {
        EngineSession(
            engine: self, number: nextSession.add(1, ordering: .relaxed).newValue, address: address, client: client, sink: deliver,
            ended: ended)
    }

    /// Deletes expired sessions and sign-in codes; `parley serve` runs it periodically.
    @discardableResult
    public func purgeExpired() async throws -> Int {
        try await store.purgeExpired(now: now)
    }

    /// The epoch of the event positions (changes when the process restarts).
    public var eventEpoch: String { bus.epoch }
    /// The position of the newest event published.
    public var eventPosition: UInt64 { bus.position }
    /// Events kept for sessions that resume.
    public var eventBacklogSize: Int { bus.backlogSize }
    /// Chats whose members are in memory now (at most `Configuration.cachedChats`).
    public var cachedChatCount: Int { directory.count }

    var now: Date { configuration.now() }

    /// The chat and `user`'s role in it, or `unknown_chat` / `not_member`. With
    /// `confirmed` false, the cached role is enough even when members change elsewhere.
    /// Only a listed public group (which anyone can find by name) is `not_member` to an
    /// outsider; a private or unlisted group and a direct chat answer as an id that does
    /// not exist, so walking ids names nothing.
    func membership(of user: User, in chat: ChatID, confirmed: Bool = true) async throws -> (entry: ChatDirectory.Entry, role: Role) {
        guard var entry = try await directory.entry(chat) else {
            throw ParleyError(.unknownChat, "no chat with id \(chat)")
        }
        if confirmed, configuration.membersChangeElsewhere,
            try await store.membership(of: user.id, in: chat)?.role != entry.roles[user.id]
        {
            directory.invalidate(chat)
            guard let reloaded = try await directory.entry(chat) else { throw ParleyError(.unknownChat, "no chat with id \(chat)") }
            entry = reloaded
        }
        guard let role = entry.roles[user.id] else {
            guard entry.chat.kind == .group, entry.chat.isPublic, !entry.chat.unlisted else {
                throw ParleyError(.unknownChat, "no chat with id \(chat)")
            }
            throw ParleyError(.notMember, "you are not a member of \(EngineSession.name(of: entry.chat))")
        }
        return (entry, role)
    }

    /// Checks that `peer` is another user that exists, for a direct chat with `user`.
    func requirePeer(_ peer: UserID, of user: User) async throws {
        guard peer != user.id else { throw ParleyError(.invalidArgument, "a direct chat needs another user") }
        guard try await store.user(id: peer) != nil else { throw ParleyError(.unknownUser, "no user with id \(peer)") }
    }

    /// Everyone who shares a chat with `user`, for presence events.
    /// Whether `viewer` may be told that `user` is online: themselves, anyone who shares
    /// a chat with them (they see them come and go there anyway), and anyone else unless
    /// `user` hides their activity (`/privacy last-seen hide`). MONITOR, ISON, WHOIS,
    /// watches and `activity` all ask this (docs/server.md, "Who sees whom online").
    func mayShowOnline(_ user: UserID, to viewer: UserID, hidden: Bool) async -> Bool {
        guard hidden, user != viewer else { return true }
        return (try? await contacts(of: viewer).contains(user)) ?? false
    }

    func contacts(of user: UserID) async throws -> Set<UserID> {
        var contacts = Set<UserID>()
        for chat in try await store.chatIDs(of: user) {
            if let entry = try await directory.entry(chat) { contacts.formUnion(entry.roles.keys) }
        }
        contacts.remove(user)
        return contacts
    }

    func publishPresence(of user: UserRef, online: Bool, viewing: ChatID?, away: String? = nil, reason: String? = nil) async {
        guard let contacts = try? await contacts(of: user.id) else { return }
        let event = ChatEvent.presenceChanged(PresenceChange(user: user, online: online, viewing: viewing, away: away, reason: reason))
        await bus.publish(event, to: Array(contacts), except: nil)
        await publishToWatchers(of: user, online: online, away: away, except: contacts)
    }

    /// Tells those who watch the user's handle (and share no chat with them, who are
    /// told anyway) that the user is online or not.
    func publishToWatchers(of user: UserRef, online: Bool, away: String? = nil, except contacts: Set<UserID> = []) async {
        let event = ChatEvent.presenceChanged(PresenceChange(user: user, online: online, viewing: nil, away: away, watched: true))
        await publishToWatchers(event, of: user, except: contacts)
    }

    /// Tells those who watch the user's handle, but are not among `contacts`, of `event`.
    func publishToWatchers(_ event: ChatEvent, of user: UserRef, except contacts: Set<UserID>) async {
        guard let watchers = try? await store.presenceWatchers(of: user.handle.lowercased()), !watchers.isEmpty else { return }
        // Who hides their activity is seen online by nobody they share no chat with.
        if (try? await store.activity(of: user.id))?.hidden ?? false { return }
        let others = watchers.filter { $0 != user.id && !contacts.contains($0) }
        guard !others.isEmpty else { return }
        await bus.publish(event, to: others, except: nil)
    }
}
