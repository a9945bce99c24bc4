import Foundation
import Logging
import NIOCore
import NIOWebSocket
import ParleyCore
import ParleyProtocol
import WSClient

/// The connection to a server: connects on demand, matches replies to requests, passes
/// events on in order and once, and after a lost connection reconnects, resumes the
/// session from the last event position and sends what waited in the outbox. When the
/// server no longer has the events missed (it restarted), the messages among them are
/// fetched from the chats and passed on as events.
actor Link {
    enum State {
        case idle
        case connecting
        /// Connected; resuming the session and emptying the outbox.
        case handshaking
        case ready
        case closed
    }

    let settings: Settings
    private let events: AsyncStream<ChatEvent>.Continuation
    let onAcknowledged: @Sendable (Message) -> Void
    let onRejected: @Sendable (String, ParleyError) -> Void
    /// Why the server ended the session, when it closed the socket for that (4001), and
    /// whether the operators removed the account (4003).
    private var ended: String?
    private var removed = false
    private let onChange: @Sendable (ConnectionChange) -> Void
    private let logger = Logger(label: "parley.client")
    private let encoder = Wire.encoder()
    private let decoder = Wire.decoder()

    private(set) var state = State.idle
    /// Which of `settings.urls` is used now.
    private var current = 0
    var url: String { settings.urls[current] }
    private var outbound: WebSocketOutboundWriter?
    /// Bumped on each connection, so a request written on an old one is not awaited.
    private(set) var generation = 0
    private var nextID: Int64 = 0
    private var pending: [Int64: CheckedContinuation<Data, any Error>] = [:]
    private var early: [Int64: Data] = [:]
    private var readyWaiters: [UUID: CheckedContinuation<Void, any Error>] = [:]
    private var runner: Task<Void, Never>?
    var outbox: Outbox
    /// Where the answers to the queued messages of callers of `send` go, by client id.
    var answerSlots: [String: AnswerSlot] = [:]
    /// Whether the outbox's one sender is running.
    var sending = false

    /// Why the last connection attempt failed, for the error requests get meanwhile.
    private var lastFailure: String?
    /// What is said when a connection attempt neither failed nor got a WebSocket.
    private var silence: String {
        "no WebSocket answered there" + (url.hasPrefix("ws:") ? " (a server with TLS wants wss://)" : "")
    }

    /// The signed-in session's token, for resuming after a reconnect.
    private var token: String?
    private var epoch: String?
    private var position: UInt64 = 0

    /// A connection that was up was lost and is not back yet: requests wait only
    /// `reconnectWait`, so a shell's prompt does not stall.
    private var reconnecting = false
    /// For fetching what a restarted server no longer has.
    var missed = MissedMessages()
    /// The chat the user is viewing, told again after a resume: a restarted server
    /// would not know it.
    private var viewing: ChatID?

    init(
        settings: Settings, events: AsyncStream<ChatEvent>.Continuation,
        onAcknowledged: @escaping @Sendable (Message) -> Void, onRejected: @escaping @Sendable (String, ParleyError) -> Void,
        onChange: @escaping @Sendable (ConnectionChange) -> Void
    ) {
        self.onChange = onChange
        self.settings = settings
        self.events = events
        self.onAcknowledged = onAcknowledged
        self.onRejected = onRejected
        self.outbox = Outbox(url: settings.outboxURL)
    }

    // MARK: Requests

    /// Sends a request and returns its decoded result, or throws the server's error.
    /// Waits for the connection up to the connect timeout (`unavailable` after that).
    @discardableResult
    func call<Args, Result>(_ operation: OpDeclaration<Args, Result>, _ args: Args) async throws -> Result {
        try await ready()
        return try await exchange(operation, args)
    }

    func exchange<Args, Result>(_ operation: OpDeclaration<Args, Result>, _ args: Args) async throws -> Result {
        let op = operation.op
        guard let outbound else { throw Self.unavailable }
        nextID += 1
        let id = nextID
        let written = generation
        let frame = try encoder.encode(Request(id: id, op: op, args: args))
        do {
            try await outbound.writeTextMessage(String(decoding: frame, as: UTF8.self))
        } catch {
            throw Self.unavailable
        }
        let data: Data
        if let reply = early.removeValue(forKey: id) {
            data = reply
        } else {
            guard written == generation, state == .ready || state == .handshaking else { throw Self.unavailable }
            data = try await withCheckedThrowingContinuation { pending[id] = $0 }
        }
        let reply: Reply<Result>
        do {
            reply = try decoder.decode(Reply<Result>.self, from: data)
        } catch {
            throw ParleyError(.internalError, "unreadable reply to \(op.rawValue): \(error)")
        }
        if let error = reply.error { throw error }
        guard let result = reply.result else { throw ParleyError(.internalError, "reply to \(op.rawValue) without a result") }
        return result
    }

    /// Remembers the session after a sign-in, for resuming. A fresh sign-in starts the
    /// feed at the server's current position; a resume keeps ours (the missed events
    /// are on their way).
    func signedIn(_ session: SessionResult, fresh: Bool) {
        token = session.token
        adopt(epoch: session.epoch, position: fresh ? session.position : nil)
        Task { await self.learnWhereChatsStand() }
        // Sends queued by an earlier run on this folder: the connection was made before
        // there was a session to send them with.
        if !outbox.entries.isEmpty { startSending() }
    }

    /// A new epoch (a restarted server) starts the feed anew: at `position` for a fresh
    /// sign-in, from the start for a resume (nil). In the same epoch a fresh sign-in
    /// only moves it forward.
    private func adopt(epoch new: String, position start: UInt64?) {
        if epoch != new {
            epoch = new
            position = start ?? 0
        } else if let start {
            position = max(position, start)
        }
    }

    /// Where each chat stood at sign-in, so a later gap can be filled.
    private func learnWhereChatsStand() async {
        guard let summaries: [ChatSummary] = try? await call(OpDeclarations.chats, Empty()) else { return }
        missed.learn(summaries)
    }

    /// After a resume the server could not complete: passes on the messages missed in
    /// each chat, oldest chat first, up to `MissedMessages.limit` a chat. Returns
    /// whether that was all of them.
    private func fetchMissed() async -> Bool {
        guard let summaries: [ChatSummary] = try? await exchange(OpDeclarations.chats, Empty()) else { return false }
        var whole = true
        for summary in summaries.sorted(by: { $0.lastActivity < $1.lastActivity }) {
            guard let last = summary.lastMessage?.seq, let gap = missed.gap(in: summary.chat.id, upTo: last) else { continue }
            guard
                let messages: [Message] = try? await exchange(
                    OpDeclarations.history, Args.History(chat: summary.chat.id, limit: gap.count, before: last + 1))
            else {
                whole = false
                continue
            }
            whole = whole && gap.whole
            for message in messages where message.seq > gap.known {
                events.yield(.message(MessageEvent(chat: summary.chat, message: message)))
            }
            missed.filled(summary.chat.id, through: last)
        }
        return whole
    }

    func signedOut() {
        token = nil
        viewing = nil
    }

    func viewing(_ chat: ChatID?) {
        viewing = chat
    }

    /// The token to send with media requests, or `not_signed_in`.
    func requireToken() throws -> String {
        guard let token else { throw ParleyError(.notSignedIn, "sign in first (/login or /register)") }
        return token
    }

    // MARK: Connection

    /// Returns once connected (and resumed), connecting if needed.
    func ready() async throws {
        switch state {
        case .ready: return
        case .closed: throw ParleyError(.unavailable, "the connection is closed")
        case .idle: start()
        case .connecting, .handshaking: break
        }
        let wait = reconnecting ? settings.reconnectWait ?? settings.connectTimeout : settings.connectTimeout
        if wait <= .zero { throw ParleyError(.unavailable, "not connected to \(url); reconnecting") }
        let waiter = UUID()
        let timeout = Task {
            try? await Task.sleep(for: wait)
            self.expire(waiter)
        }
        defer { timeout.cancel() }
        try await withCheckedThrowingContinuation { readyWaiters[waiter] = $0 }
    }

    private func expire(_ waiter: UUID) {
        readyWaiters.removeValue(forKey: waiter)?.resume(
            throwing: ParleyError(.unavailable, "cannot reach \(url): " + (lastFailure ?? silence)))
    }

    func start() {
        guard runner == nil else { return }
        state = .connecting
        runner = Task { await self.run() }
    }

    /// Connects, and reconnects with backoff while there is a session or an outbox to keep.
    private func run() async {
        var backoff: Duration = .milliseconds(100)
        // Ends on cancellation too (`close()`): a cancelled sleep returns at once.
        while state != .closed, !Task.isCancelled {
            state = .connecting
            do {
                var configuration = WebSocketClientConfiguration(maxFrameSize: Wire.maxServerFrameBytes)
                configuration.autoPing = .disabled
                let tls = url.hasPrefix("wss:") ? try settings.trust.configuration() : nil
                let close = try await WebSocketClient.connect(
                    url: Self.identified(url, as: settings.client), configuration: configuration, tlsConfiguration: tls, logger: logger
                ) {
                    inbound, outbound, _ in
                    // Closed while the connection was being made: hang it up.
                    guard await self.connected(outbound) else { return }
                    let handshake = Task { await self.handshake() }
                    defer { handshake.cancel() }
                    for try await message in inbound.messages(maxSize: 16 << 20) {
                        switch message {
                        case .text(let text): await self.receive(Data(text.utf8))
                        case .binary(let buffer): await self.receive(Data(buffer.readableBytesView))
                        }
                    }
                }
                // A server that is going away is not asked again at once.
                backoff = close?.closeCode == .goingAway ? .seconds(1) : .milliseconds(100)
                // 4001: the server ended the session itself; resuming it would only fail.
                if close?.closeCode == .unknown(4001) { ended = close?.reason ?? "the session was signed out" }
                // 4003: the operators suspended or banned the account.
                if close?.closeCode == .unknown(4003) {
                    ended = close?.reason ?? "the server's operators removed this account"
                    removed = true
                }
                if state == .connecting { lastFailure = silence }
            } catch {
                lastFailure = (error as? ParleyError)?.message ?? ServerTrust.reason(error)
                logger.debug("connection to \(url) failed: \(error)")
            }
            disconnected()
            guard state != .closed else { break }
            if token == nil && outbox.entries.isEmpty && readyWaiters.isEmpty {
                state = .idle
                break
            }
            if settings.urls.count > 1 {
                // The next node, at once while there are untried ones this round.
                current = (current + 1) % settings.urls.count
                if current != 0 { continue }
            }
            do { try await Task.sleep(for: backoff) } catch { break }
            backoff = min(backoff * 2, .seconds(5))
        }
        runner = nil
    }

    /// Takes a new connection, unless the link was closed meanwhile (then false).
    private func connected(_ outbound: WebSocketOutboundWriter) -> Bool {
        guard state != .closed else { return false }
        lastFailure = nil
        generation += 1
        self.outbound = outbound
        state = .handshaking
        return true
    }

    /// After connecting: resume the session (missed events come first), send the outbox,
    /// then let waiting requests through.
    private func handshake() async {
        var complete = true
        if let token {
            let after = epoch.map { EventPosition(epoch: $0, position: position) }
            // Live events wait while missed messages are fetched, so none comes twice.
            missed.startHolding()
            defer { for event in missed.release() { pass(event) } }
            do {
                let session: SessionResult = try await exchange(OpDeclarations.resume, Args.Resume(token: token, after: after))
                adopt(epoch: session.epoch, position: nil)
                complete = session.complete
                if let viewing { let _: Empty? = try? await exchange(OpDeclarations.setViewing, Args.Viewing(chat: viewing)) }
                if !session.complete { complete = await fetchMissed() }
            } catch let error as ParleyError where error.code == .invalidToken {
                self.token = nil
            } catch {
                return
            }
        }
        if !sending { await flushOutbox() }
        guard state == .handshaking else { return }
        state = .ready
        if reconnecting {
            reconnecting = false
            onChange(.back(complete: complete))
        }
        for waiter in readyWaiters.values { waiter.resume() }
        readyWaiters.removeAll()
    }

    private func pass(_ event: ChatEvent) {
        if case .message(let message) = event { missed.saw(message.message) }
        events.yield(event)
    }

    private func disconnected() {
        if let reason = ended {
            ended = nil
            token = nil
            if state == .ready { onChange(removed ? .removed(reason: reason) : .signedOut(reason: reason)) }
            removed = false
        } else if state == .ready {
            reconnecting = true
            onChange(.lost)
        }
        outbound = nil
        generation += 1
        for continuation in pending.values { continuation.resume(throwing: Self.unavailable) }
        pending.removeAll()
        early.removeAll()
        if state != .closed { state = .connecting }
    }

    private func receive(_ frame: Data) {
        switch try? decoder.decode(ServerFrame.self, from: frame) {
        case .event(let event):
            // Positions only grow: anything at or before the last one was delivered already.
            guard event.pos > position else { return }
            position = event.pos
            if !missed.hold(event.event) { pass(event.event) }
        case .reply(let id?):
            if let continuation = pending.removeValue(forKey: id) {
                continuation.resume(returning: frame)
            } else {
                early[id] = frame
            }
        case .reply(nil), nil:
            return
        }
    }

    func close() async {
        state = .closed
        let outbound = outbound
        try? await outbound?.close(.normalClosure, reason: nil)
        runner?.cancel()
        for waiter in readyWaiters.values { waiter.resume(throwing: Self.unavailable) }
        readyWaiters.removeAll()
        events.finish()
    }

    static let unavailable = ParleyError(.unavailable, "the connection to the server was lost")
}
