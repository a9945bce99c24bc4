public import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore
import Synchronization

/// One client connection to the engine: signed out until `register`, `signIn` or
/// `resume`, then acting as that user. Every verb checks the caller here, through the
/// `require…` helpers, before it touches the store.
public final class EngineSession: GatewayService {
    struct State {
        var user: User?
        var tokenHash: Data?
        var expiresAt: Date?
        var subscription: SubscriptionID?
        var closed = false
        /// Signed in with `signInAsGuest`: the nick is freed when the session closes.
        var isGuest = false
        /// When the user was last seen before this session signed in.
        var seenBefore: Date?
        /// Acting for the user without being a client of theirs (`ChatEngine.acting`).
        var isActing = false
        /// The operator whose login and password this connection proved (IRC's OPER),
        /// whoever it is signed in as: it acts with that operator's rights.
        var provenOperator: User?
    }

    /// When the user was last seen (around on any client, or leaving the last of them)
    /// before this session signed in; nil before signing in or for a first sign-in. A
    /// front end plays back what was said since (the IRC gateway, for clients that do not
    /// page history themselves).
    public var lastSeenBeforeSignIn: Date? { state.withLock { $0.seenBefore } }

    public let engine: ChatEngine
    let number: Int
    let state = Mutex(State())
    /// The user's live events (empty and finished when a `sink` takes them instead).
    public let events: AsyncStream<ChatEvent>
    let continuation: AsyncStream<ChatEvent>.Continuation
    /// Where a server's socket takes the events, with their positions for resuming.
    let sink: (@Sendable (PositionedEvent) -> Void)?
    /// Told when the session's token is revoked elsewhere (signed out on another
    /// connection, password changed): a server closes the socket.
    let ended: (@Sendable (ParleyError) -> Void)?
    /// Where the client connects from, for the code-sending rate limit ("local" when
    /// embedded).
    public let address: String
    /// How the program connecting named itself, printable and at most 64 characters.
    public let client: String

    init(
        engine: ChatEngine, number: Int, address: String, client: String, sink: (@Sendable (PositionedEvent) -> Void)? = nil,
        ended: (@Sendable (ParleyError) -> Void)? = nil
    ) {
        self.address = address
        let printable = String(String.UnicodeScalarView(client.unicodeScalars.filter { !Limits.isControl($0) }).prefix(64))
        self.client = printable.isEmpty ? "unknown" : printable
        self.ended = ended
        self.engine = engine
        self.number = number
        self.sink = sink
        // A session with a sink (a server's socket) never reads `events`: they all share
        // one finished stream, which saved an idle socket's session 112 bytes.
        (events, continuation) = sink == nil ? AsyncStream.makeStream(of: ChatEvent.self) : Self.finished
    }

    private static let finished: (AsyncStream<ChatEvent>, AsyncStream<ChatEvent>.Continuation) = {
        let made = AsyncStream.makeStream(of: ChatEvent.self)
        made.continuation.finish()
        return made
    }()

    deinit {
        let (user, subscription) = state.withLock { ($0.user, $0.subscription) }
        if let subscription { engine.bus.unsubscribe(subscription) }
        continuation.finish()
        if let user, engine.registry.disconnect(user.id, session: number) {
            let engine = engine
            engine.presenceOrder.run(user.id) {
                if await engine.left(user.id) { await engine.publishPresence(of: user.ref, online: false, viewing: nil) }
            }
        }
    }

    var store: any ChatStore { engine.store }
    var subscription: SubscriptionID? { state.withLock { $0.subscription } }
    /// When the signed-in session's token expires (nil when signed out).
    public var expiresAt: Date? { state.withLock { $0.expiresAt } }
    /// The signed-in user's id, for logs.
    public var userID: UserID? { state.withLock { $0.user?.id } }
    /// This session as the cause of an event.
    var origin: EventOrigin { state.withLock { EventOrigin(subscription: $0.subscription, tokenHash: $0.tokenHash) } }

    /// The signed-in user, or `not_signed_in`; `profile_required` until a first phone
    /// sign-in has chosen a display name.
    func requireUser() throws -> User {
        let user = try requireAccount()
        guard !user.displayName.isEmpty else {
            throw ParleyError(.profileRequired, "choose a display name first: /profile --name \"Your Name\"")
        }
        return user
    }

    /// The signed-in user, also before the profile step (for `me`, `updateProfile`, `signOut`).
    func requireAccount() throws -> User {
        let (user, tokenHash, acting) = state.withLock { ($0.user, $0.tokenHash, $0.isActing) }
        guard let user else {
            throw ParleyError(.notSignedIn, "sign in first (/login or /register)")
        }
        if !acting { engine.noteActivity(of: user.id, session: tokenHash) }
        return user
    }

    /// The chat and the caller's role in it, or `unknown_chat` / `not_member`;
    /// `confirmed` as in `ChatEngine.membership`.
    func requireMember(_ chat: ChatID, confirmed: Bool = true) async throws -> (entry: ChatDirectory.Entry, role: Role, user: User) {
        let user = try requireUser()
        let (entry, role) = try await engine.membership(of: user, in: chat, confirmed: confirmed)
        return (entry, role, user)
    }

    /// As `requireMember`, for groups only.
    func requireGroupMember(_ chat: ChatID) async throws -> (entry: ChatDirectory.Entry, role: Role, user: User) {
        let member = try await requireMember(chat)
        guard member.entry.chat.kind == .group else {
            throw ParleyError(.notAGroup, "this is a direct chat, not a group")
        }
        return member
    }

    /// As `requireGroupMember`, for owners and admins only.
    func requireManager(_ chat: ChatID) async throws -> (entry: ChatDirectory.Entry, role: Role, user: User) {
        let member = try await requireGroupMember(chat)
        guard member.role.canManage else {
            throw ParleyError(.forbidden, "only the owner and admins of \(Self.name(of: member.entry.chat)) can do that")
        }
        return member
    }

    static func name(of chat: Chat) -> String {
        switch chat.kind {
        case .group: "#\(chat.handle ?? String(chat.id.rawValue))"
        case .direct: "this direct chat"
        }
    }

    /// Publishes to the chat's members (other sessions than this one).
    func publish(_ event: ChatEvent, toMembersOf chat: ChatID, alsoTo extra: [UserID] = []) async throws {
        var members = try await engine.directory.entry(chat)?.members ?? []
        for user in extra where !members.contains(user) { members.append(user) }
        await engine.bus.publish(event, to: members, except: origin)
    }

    public func close() async {
        await close(reason: nil)
    }

    /// Closes the connection and ends its signed-in session with it, so that nothing is
    /// left to resume: for a front end whose connections are their sessions (IRC, where
    /// every connection signs in afresh), so that reconnecting leaves none behind.
    public func end(reason: String? = nil) async {
        if let tokenHash = state.withLock({ $0.tokenHash }) { try? await store.deleteSession(tokenHash: tokenHash) }
        await close(reason: reason)
    }

    /// Closes the connection, saying why to the user's contacts if they go offline (an
    /// IRC QUIT message; dropped if it is not a valid reason).
    public func close(reason: String?) async {
        let (user, subscription) = state.withLock { state in
            state.closed = true
            return (state.user, state.subscription)
        }
        await detach(user: user, subscription: subscription, reason: try? Limits.reason(reason))
        await leaveGroupsIfGuest(user)
        await retireIfGuest(user)
        continuation.finish()
    }

    /// Ends this session's presence and event subscription, without revoking its token.
    func detach(user: User?, subscription: SubscriptionID?, reason: String? = nil) async {
        if let subscription { engine.bus.unsubscribe(subscription) }
        guard let user else { return }
        state.withLock { state in
            if state.user?.id == user.id {
                state.user = nil
                state.tokenHash = nil
                state.expiresAt = nil
                state.subscription = nil
            }
        }
        if engine.registry.disconnect(user.id, session: number) {
            let engine = engine
            await engine.presenceOrder.run(user.id) {
                try? await engine.store.recordSeen(user.id, at: engine.now)
                if await engine.left(user.id) { await engine.publishPresence(of: user.ref, online: false, viewing: nil, reason: reason) }
            }.value
        }
    }
}
