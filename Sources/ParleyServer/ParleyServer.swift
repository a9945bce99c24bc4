import Foundation
public import Hummingbird
import HummingbirdCore
public import Logging
import NIOCore
public import NIOSSL
import NIOWebSocket
import ParleyCore
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

    let engine: ChatEngine
    let configuration: Configuration
    let metrics = ServerMetrics()
    let logger: Logger
    let socketsPerUser = Mutex([UserID: Int]())
    /// What each account's sockets share of `requestsPerAccount`.
    let accountPace: AccountPace
    /// Requests a second each socket may make now: `setRates` changes it, and each
    /// socket takes the new rate up at its next request.
    let socketRate: Atomic<Int>
    let sockets = SocketRegistry()
    private let loops = Mutex([ObjectIdentifier: LoopServices]())
    /// Connections open now, WebSocket and HTTP, for `Configuration.maxConnections`.
    let openConnections = Atomic<Int>(0)
    /// The TLS context new connections get (`replaceTLS`); nil without TLS, or when the
    /// configuration's makes none (the server then refuses to start).
    let tlsContext: TLSContextHolder?

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
        tlsContext = configuration.tls.flatMap { try? TLSContextHolder($0) }
        let perSocket = configuration.requestsPerSecond
        socketRate = Atomic(perSocket)
        accountPace = AccountPace(perSecond: Self.accountRate(perSocket: perSocket, perAccount: configuration.requestsPerAccount))
        self.logger = logger
    }

    /// Serves new connections with this TLS configuration (a renewed certificate); those
    /// open keep theirs. Throws, changing nothing, when it makes no context.
    public func replaceTLS(_ configuration: TLSConfiguration) throws {
        guard let tlsContext else { throw ParleyError(.unavailable, "this server serves no TLS") }
        try tlsContext.replace(with: configuration)
    }

    /// New request rates, from now, for every socket open and to come (a reload of the
    /// server's settings); none is closed for it.
    public func setRates(perSocket: Int, perAccount: Int?) {
        socketRate.store(perSocket, ordering: .relaxed)
        accountPace.setRate(perSecond: Self.accountRate(perSocket: perSocket, perAccount: perAccount))
    }

    /// An account's rate: `perAccount`, or twice a socket's; none when sockets have none.
    static func accountRate(perSocket: Int, perAccount: Int?) -> Int {
        perSocket == 0 ? 0 : perAccount ?? perSocket.multipliedReportingOverflow(by: 2).partialValue
    }

    /// How a server's store begins a commit: after the requests its event loop has
    /// already read, so their sends join it. Give it to the store the server's engine
    /// runs on (`SQLiteChatStore(path:…, batchStart: ParleyServer.batchStart)`).
    public static var batchStart: BatchStart { LoopGroups.batchStart }

    /// The event loops a server with `threads` loops serves its sockets on, made once
    /// for the process: another front end on them (the IRC gateway) shares their
    /// threads, and its sends join the same group commits.
    public static func eventLoopGroup(threads: Int) -> any EventLoopGroup { LoopGroups.shared(threads: threads) }

    /// `eventLoop` as the executor a front end's request tasks prefer (as the server's
    /// sockets' do): a request runs on the thread that read it, and a commit resumes it
    /// with one wake of that loop.
    public static func taskExecutor(on eventLoop: any EventLoop) -> any TaskExecutor { LoopExecutor(eventLoop) }

    /// The Hummingbird application; run it with `runService()` (stops on SIGINT/SIGTERM)
    /// or inside a `ServiceGroup`.
    public func application(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: ParleyRequestContext.self)
        router.add(middleware: SecurityHeaders())
        router.get("/healthz") { _, _ in "ok\n" }
        router.get("/v1/openapi.yaml") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/yaml"],
                body: .init(byteBuffer: ByteBuffer(string: Self.openAPIDocument)))
        }
        router.get("/metrics") { [metrics, engine, database = configuration.databasePath] _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition(backlog: engine.eventBacklogSize, database: database))))
        }
        addMediaRoutes(to: router)
        addHookRoutes(to: router)
        addAPIRoutes(to: router)
        router.get(RouterPath(ServerChannel.socketPath)) { _, _ in
            Response(
                status: .init(code: 426, reasonPhrase: "Upgrade Required"), headers: [.upgrade: "websocket", .secWebSocketVersion: "13"])
        }
        return Application(
            router: router,
            server: HTTPServerBuilder { [tls = configuration.tls, tlsContext] responder in
                let channel = ServerChannel(responder: responder, server: self)
                guard tls != nil else { return channel }
                guard let tlsContext else { throw ParleyError(.fileError, "the TLS certificate and key make no TLS context") }
                return ReloadableTLSChannel(base: channel, holder: tlsContext)
            },
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "parley"),
            services: [
                sockets, Upkeep(engine: engine, interval: configuration.upkeepInterval, metrics: metrics, logger: logger),
                ReminderSweep(engine: engine), RetentionSweep(engine: engine, metrics: metrics, logger: logger), BanWatch(engine: engine),
            ],
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

    /// What the sockets of `eventLoop` share, made for its first.
    func perLoop(_ eventLoop: any EventLoop) -> LoopServices {
        loops.withLock { loops in
            if let known = loops[ObjectIdentifier(eventLoop)] { return known }
            let made = LoopServices(
                writer: EventWriter(eventLoop: eventLoop, interval: configuration.eventWriteInterval, metrics: metrics),
                executor: LoopExecutor(eventLoop),
                // A client that answers nothing between two pings is gone.
                pings: PingSweep(eventLoop: eventLoop, interval: TimeAmount(configuration.pingTimeout / 2)))
            loops[ObjectIdentifier(eventLoop)] = made
            return made
        }
    }

}

/// What the sockets of one event loop share: the writer of their events, the executor
/// their requests run on, and what pings them. One reference a socket, however many
/// there are: an idle socket's memory is a figure the server keeps low.
final class LoopServices: Sendable {
    let writer: EventWriter
    let executor: LoopExecutor
    let pings: PingSweep

    init(writer: EventWriter, executor: LoopExecutor, pings: PingSweep) {
        self.writer = writer
        self.executor = executor
        self.pings = pings
    }
}
