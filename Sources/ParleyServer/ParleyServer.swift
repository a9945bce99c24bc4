import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import NIOCore
public import NIOSSL
import NIOWebSocket
public import ParleyCore
public import ParleyEngine
import ParleyLive
import ParleyProtocol
public import ParleyStore
import Prometheus
import ServiceLifecycle
import Synchronization

/// `parley serve`: one WebSocket route for every op and live event, media upload and
/// download over HTTP, `/healthz`, and `/metrics` in Prometheus text format.
///
/// ```swift
/// let server = ParleyServer(engine: engine, configuration: .init(port: 0))
/// let app = server.application { port in print("listening on \(port)") }
/// try await app.runService()
/// ```
public final class ParleyServer: Sendable {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port (reported to `onRunning`).
        public var port = 7878
        /// A socket with no pong for this long is closed and its user shown offline.
        public var pingTimeout: Duration = .seconds(15)
        /// A socket that has not signed in by then is closed.
        public var signInTimeout: Duration = .seconds(10)
        /// Frames larger than this close the socket with code 1009.
        public var maxFrameSize = 64 * 1024
        /// Requests per second per socket (a burst of twice as many is allowed); 0: no limit.
        public var requestsPerSecond = 500
        public var maxSocketsPerUser = 32
        /// Events for sockets go out at most this often per event loop: under a steady
        /// stream each write carries several, at the cost of at most this much delay;
        /// an event after a quiet spell goes out at once.
        public var eventWriteInterval: Duration = .milliseconds(1)
        /// Threads that serve the sockets (NIO event loops; each socket's requests run
        /// on its own). One fewer than the cores, at least one: the core left over
        /// writes the messages (SQLite's writer has a thread of its own), and fewer
        /// threads than cores keeps hand-offs cheap (see docs/performance.md).
        public var eventLoops = Self.defaultEventLoops
        public static var defaultEventLoops: Int { max(1, ProcessInfo.processInfo.activeProcessorCount - 1) }
        /// The counts of event loops a server takes; one outside is brought to the nearest.
        public static let eventLoopRange = 1...256
        /// A connection that has not finished its HTTP request head (or WebSocket
        /// upgrade) by then is closed; an HTTP connection idle this long between
        /// requests too.
        public var handshakeTimeout: Duration = .seconds(5)
        /// Open connections at most (WebSocket and HTTP); past it a new one is answered
        /// 503 and closed.
        public var maxConnections = 10_000
        /// Event bytes a socket may leave unread: past them, a socket that reads none
        /// for `slowReaderTimeout` is closed with 4008 (its user resumes from their
        /// position when they reconnect); past 16 times as many (64 MiB at least), at once.
        public var maxUnwrittenBytes = 4 << 20
        public var slowReaderTimeout: Duration = .seconds(10)
        /// How often expired sessions and codes are purged and unused uploads swept.
        public var upkeepInterval: Duration = .seconds(600)
        /// With a certificate and key: `wss://` and `https://` on the same port, and
        /// nothing in the clear.
        public var tls: TLSConfiguration?
        /// The SQLite file, whose size (and its log's) `/metrics` shows.
        public var databasePath: String?

        public init(host: String = "127.0.0.1", port: Int = 7878) {
            self.host = host
            self.port = port
        }

        /// Serves TLS with the certificate chain and private key in these PEM files.
        public mutating func useTLS(certificateFile: String, keyFile: String) throws(ParleyError) {
            let chain: [NIOSSLCertificate]
            do {
                chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
            } catch {
                throw ParleyError(.fileError, "cannot read a PEM certificate from \(certificateFile): \(error)")
            }
            guard !chain.isEmpty else { throw ParleyError(.fileError, "\(certificateFile) holds no PEM certificate") }
            let key: NIOSSLPrivateKey
            do {
                key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
            } catch {
                throw ParleyError(.fileError, "cannot read a PEM private key from \(keyFile): \(error)")
            }
            var tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
            tls.minimumTLSVersion = .tlsv12
            self.tls = tls
        }

        /// `ws` or `wss`, as clients address the socket.
        public var socketScheme: String { tls == nil ? "ws" : "wss" }
    }

    let engine: ChatEngine
    let configuration: Configuration
    let metrics = ServerMetrics()
    let logger: Logger
    private let socketsPerUser = Mutex([UserID: Int]())
    let sockets = SocketRegistry()
    private let loops = Mutex([ObjectIdentifier: (writer: EventWriter, executor: LoopExecutor)]())
    /// Connections open now, WebSocket and HTTP, for `Configuration.maxConnections`.
    let openConnections = Atomic<Int>(0)

    /// Bytes the WebSockets' channels have buffered for writing now: each stops taking
    /// events at its high-water mark, however slowly its client reads, and the events
    /// past it wait in the socket as references to frames the bus holds anyway.
    public func channelBufferedBytes() async -> Int {
        var total = 0
        for channel in sockets.channels {
            total += (try? await channel.getOption(ChannelOptions.bufferedWritableBytes).get()) ?? 0
        }
        return total
    }

    public init(engine: ChatEngine, configuration: Configuration, logger: Logger = Logger(label: "parley.server")) {
        self.engine = engine
        var configuration = configuration
        // Past the open-file limit, accept fails and /healthz, the database and media
        // files fail with it: the cap keeps descriptors back for them.
        let descriptors = Self.openFileLimit()
        if configuration.maxConnections > descriptors - Self.reservedDescriptors {
            configuration.maxConnections = max(1, descriptors - Self.reservedDescriptors)
            logger.warning(
                "at most \(configuration.maxConnections) connections: the open-file limit is \(descriptors) (raise it with ulimit -n)")
        }
        self.configuration = configuration
        self.logger = logger
    }

    /// How a server's store begins a commit: after the requests its event loop has
    /// already read, so their sends join it. Give it to the store the server's engine
    /// runs on (`SQLiteChatStore(path:…, batchStart: ParleyServer.batchStart)`).
    public static var batchStart: BatchStart { LoopGroups.batchStart }

    /// What a failure to start means for the person who ran the server, or nil when
    /// there is nothing to add to the error itself.
    public static func startFailure(_ error: any Error, host: String, port: Int) -> ParleyError? {
        guard let failure = error as? IOError else { return nil }
        switch failure.errnoCode {
        case EADDRINUSE:
            return ParleyError(
                .unavailable,
                "\(host):\(port) is already in use (another parley serve, or another program?): stop it, or choose another --port (0 picks a free one)"
            )
        case EACCES:
            return ParleyError(.unavailable, "\(host):\(port) needs privileges this user lacks: choose a --port above 1023")
        case EADDRNOTAVAIL:
            return ParleyError(.unavailable, "\(host) is not an address of this machine: choose another --host")
        default:
            return nil
        }
    }

    /// Descriptors kept for the database, media files, logs and `/healthz`.
    static let reservedDescriptors = 64

    /// The process's soft limit on open files.
    static func openFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return Int.max / 2 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit on open files to the hard one (what `parley serve` does at
    /// start, so the connection cap, not the default 1,024, decides).
    public static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The Hummingbird application; run it with `runService()` (stops on SIGINT/SIGTERM)
    /// or inside a `ServiceGroup`.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: ParleyRequestContext.self)
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/metrics") { [metrics, engine, database = configuration.databasePath] _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition(backlog: engine.eventBacklogSize, database: database))))
        }
        addMediaRoutes(to: router)
        router.get(RouterPath(ServerChannel.socketPath)) { _, _ in
            Response(
                status: .init(code: 426, reasonPhrase: "Upgrade Required"), headers: [.upgrade: "websocket", .secWebSocketVersion: "13"])
        }
        return Application(
            router: router,
            server: HTTPServerBuilder { [tls = configuration.tls] responder in
                let channel = ServerChannel(responder: responder, server: self)
                guard let tls else { return channel }
                return try TLSChannel(channel, tlsConfiguration: tls)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "parley"),
            services: [sockets, Upkeep(engine: engine, interval: configuration.upkeepInterval, metrics: metrics, logger: logger)],
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            eventLoopGroupProvider: .shared(LoopGroups.shared(threads: configuration.eventLoops)),
            logger: logger
        )
    }

    /// Counts a committed batch of messages: how long the commit took and how many it held.
    public func recordCommit(duration: Duration, messages: Int) {
        metrics.commitSeconds.record(duration)
        metrics.commitBatch.record(Double(messages))
    }

    /// Answers one request frame: the reply frame, whether the socket must close, and
    /// whether the socket's session changed (signed in, resumed or signed out).
    func handle(
        _ frame: Data, dispatcher: Dispatcher, limiter: TokenBucket, user: SocketUser
    ) async -> (frame: Data, close: Bool, sessionChanged: Bool) {
        let started = ContinuousClock.now
        switch dispatcher.head(of: frame) {
        case .failure(let failure):
            metrics.rejected.increment()
            metrics.count(failure.error.code)
            return (dispatcher.failure(failure.id, failure.error), false, false)
        case .success(let (id, op)):
            guard limiter.allow() else {
                metrics.rejected.increment()
                metrics.count(.rateLimited)
                return (
                    dispatcher.failure(
                        id, ParleyError(.rateLimited, "slow down: at most \(configuration.requestsPerSecond) requests a second")), false,
                    false
                )
            }
            let (reply, error, signedIn) = await dispatcher.perform(op, id: id, frame: frame)
            metrics.record(op: op, since: started, error: error)
            if op == .send && error == nil { metrics.sent.increment() }
            if op == .signOut, let previous = user.value.withLock({ $0 }) {
                release(previous)
                user.value.withLock { $0 = nil }
            }
            if let signedIn {
                guard claim(signedIn.id) else {
                    await dispatcher.session.close()
                    let error = ParleyError(.tooManySockets, "at most \(configuration.maxSocketsPerUser) connections per user")
                    return (dispatcher.failure(id, error), true, false)
                }
                if let previous = user.value.withLock({ $0 }) { release(previous) }
                user.value.withLock { $0 = signedIn.id }
            }
            return (reply, false, op == .signOut || signedIn != nil)
        }
    }

    /// The one `EventWriter` of `eventLoop`, and the executor its sockets' requests run on.
    func perLoop(_ eventLoop: any EventLoop) -> (writer: EventWriter, executor: LoopExecutor) {
        loops.withLock { loops in
            if let known = loops[ObjectIdentifier(eventLoop)] { return known }
            let writer = EventWriter(eventLoop: eventLoop, interval: TimeAmount(configuration.eventWriteInterval), metrics: metrics)
            let made = (writer, LoopExecutor(eventLoop))
            loops[ObjectIdentifier(eventLoop)] = made
            return made
        }
    }

    private func claim(_ user: UserID) -> Bool {
        socketsPerUser.withLock { counts in
            guard counts[user, default: 0] < configuration.maxSocketsPerUser else { return false }
            counts[user, default: 0] += 1
            metrics.signedInConnections.increment()
            metrics.anonymousConnections.decrement()
            return true
        }
    }

    func release(_ user: UserID) {
        socketsPerUser.withLock { counts in
            counts[user, default: 1] -= 1
            if counts[user] == 0 { counts[user] = nil }
            metrics.signedInConnections.decrement()
            metrics.anonymousConnections.increment()
        }
    }

    private static let eventEncoder = Wire.encoder()

    /// An event as a complete WebSocket text frame, header included: a server's frames
    /// are not masked, so every socket can be sent the same bytes.
    static func frame(of event: PositionedEvent) -> EventFrameBytes {
        let frame = EventFrame(event: event.event, pos: event.position)
        let payload = WireWriter.eventFrame(frame) ?? Array((try? eventEncoder.encode(frame)) ?? Data())
        var bytes = ByteBuffer()
        bytes.reserveCapacity(payload.count + 10)
        bytes.writeInteger(UInt8(0x81))  // FIN, text
        switch payload.count {
        case ..<126: bytes.writeInteger(UInt8(payload.count))
        case ...0xFFFF:
            bytes.writeInteger(UInt8(126))
            bytes.writeInteger(UInt16(payload.count))
        default:
            bytes.writeInteger(UInt8(127))
            bytes.writeInteger(UInt64(payload.count))
        }
        bytes.writeBytes(payload)
        return EventFrameBytes(bytes: bytes)
    }
}

/// One event's frame, encoded once and written to every socket that gets it.
final class EventFrameBytes: Sendable {
    let bytes: ByteBuffer
    init(bytes: ByteBuffer) { self.bytes = bytes }
}

/// Who a socket is signed in as.
final class SocketUser: Sendable {
    let value = Mutex<UserID?>(nil)
}
