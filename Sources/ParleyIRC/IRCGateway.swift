public import Logging
public import NIOCore
public import NIOPosix
public import NIOSSL
import ParleyCore
public import ParleyEngine
import ParleyLive
public import ServiceLifecycle
import Synchronization

/// The IRC gateway of `parley serve --irc-port`: IRC clients (irssi, WeeChat, bots,
/// bridges) reach the same groups and people as Parley's own clients. Lines in become
/// `ChatService` verbs on an `EngineSession`, engine events become lines out; no chat
/// rule lives here (docs/irc.md).
///
/// ```swift
/// let gateway = IRCGateway(engine: engine, configuration: .init(port: 6667)) { port in print(port) }
/// try await ServiceGroup(services: [gateway], logger: logger).run()
/// ```
public final class IRCGateway: Service {
    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// Plain IRC's port (0 picks a free one; nil: none).
        public var port: Int? = 6667
        /// IRC over TLS: the port (0 picks a free one) and the server's TLS settings.
        public var tls: (port: Int, configuration: TLSConfiguration)?
        /// Silent this long (no line, no PONG), a connection is closed and its user
        /// goes offline; the gateway sends PING at half of it.
        public var pingTimeout: Duration = .seconds(15)
        /// A connection that has not signed in by then is closed.
        public var signInTimeout: Duration = .seconds(10)
        /// Lines a connection may send each second, in bursts of twice that (0: no
        /// limit). Lines past it wait their turn, in order; a connection with more than
        /// `floodLines` lines or `floodBytes` bytes waiting is closed ("Excess Flood").
        public var linesPerSecond = 10
        /// Lines an account may send each second over all its connections here, in
        /// bursts of twice that (nil: three connections' worth; 0: no account limit).
        public var accountLinesPerSecond: Int?
        public var floodLines = 100
        public var floodBytes = 64 << 10
        /// A connection without credentials under a nick no account holds becomes a
        /// guest for as long as it is connected (`EngineSession.signInAsGuest`).
        public var guests = false
        /// What a client without `draft/chathistory` is played back when it connects:
        /// at most `perChat` messages of each chat and `total` in all (0: none).
        public var playback = (perChat: 50, total: 400)
        /// A client that leaves this many bytes of lines unread is not reading: it is
        /// closed rather than buffered for (IRC servers' "sendq"). 1 MiB, InspIRCd's
        /// hard limit for users.
        public var sendQueueBytes = 1 << 20
        /// Open IRC connections at most; past it a new one is told so and closed.
        public var maxConnections = 10_000
        /// How the server names itself in lines (`:parley 001 …`).
        public var serverName = "parley"
        /// What LINKS and WHOIS say of the server.
        public var serverInfo = "Parley"
        public var network = "Parley"
        /// Deliveries (others' messages, joins, presence) are written in runs at most
        /// one an interval on average, so that a busy group's lines reach each
        /// connection several to a write; replies to a connection's own lines, its
        /// echoes among them, go at once (`IRCLineWriter`). Half a millisecond: in the
        /// closed loop it gave 13–19% more messages a second than writing each
        /// delivery at once, with the same latency at 1,000 messages a second, where a
        /// whole millisecond (the WebSocket's `eventWriteInterval`) added 0.4 ms to the
        /// p99 (docs/performance.md).
        public var deliveryInterval: Duration = .microseconds(500)

        public init(host: String = "127.0.0.1", port: Int? = 6667) {
            self.host = host
            self.port = port
        }
    }

    let engine: ChatEngine
    let configuration: Configuration
    let logger: Logger
    /// Who is and was signed in here, for LUSERS and WHOWAS.
    let people = IRCPeople()
    /// What each account's connections share of `accountLinesPerSecond`.
    let accountPace: AccountPace
    /// Lines a second each connection may send now: `setLineRates` changes it, and each
    /// connection takes the new rate up at its next line.
    private let lineRate: Atomic<Int>
    private let open = Mutex([ObjectIdentifier: any Channel]())
    private struct Listener {
        let channel: any Channel
        let port: Int
        let tls: Bool
    }
    private let listeners = Mutex<[Listener]>([])
    /// The TLS context new `ircs://` connections get, which a reload may replace.
    private let tlsContext = Mutex<NIOSSLContext?>(nil)
    private let mediaBase = Mutex<String?>(nil)
    /// Each event loop's line writer and the executor its connections' lines are
    /// handled on, made when its first connection opens.
    private let loops = Mutex([ObjectIdentifier: (writer: IRCLineWriter, executor: (any TaskExecutor)?)]())

    /// The event loops the connections live on.
    private let eventLoopGroup: any EventLoopGroup

    /// The executor a connection's line handling prefers, given its loop.
    private let taskExecutor: @Sendable (any EventLoop) -> (any TaskExecutor)?

    /// - Parameters:
    ///   - eventLoopGroup: where connections live: a server's own loops
    ///     (`ParleyServer.eventLoopGroup(threads:)`) keep its threads few.
    ///   - taskExecutor: what a connection's lines are handled on, given its loop
    ///     (`ParleyServer.taskExecutor(on:)`); nil: Swift's shared pool.
    public init(
        engine: ChatEngine, configuration: Configuration, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        taskExecutor: @escaping @Sendable (any EventLoop) -> (any TaskExecutor)? = { _ in nil },
        logger: Logger = Logger(label: "parley.irc")
    ) {
        // PING answers after every earlier line: from here on, lines are numbered.
        engine.arrivals.enable()
        self.engine = engine
        self.configuration = configuration
        lineRate = Atomic(configuration.linesPerSecond)
        accountPace = AccountPace(
            perSecond: Self.accountRate(perConnection: configuration.linesPerSecond, perAccount: configuration.accountLinesPerSecond))
        self.eventLoopGroup = eventLoopGroup
        self.taskExecutor = taskExecutor
        self.logger = logger
    }

    /// An account's rate: `perAccount`, or three connections' worth; none when
    /// connections have none.
    private static func accountRate(perConnection: Int, perAccount: Int?) -> Int {
        perConnection == 0 ? 0 : perAccount ?? perConnection.multipliedReportingOverflow(by: 3).partialValue
    }

    /// New line rates, from now, for every connection open and to come (a reload of the
    /// server's settings); none is closed for it.
    public func setLineRates(perConnection: Int, perAccount: Int?) {
        lineRate.store(perConnection, ordering: .relaxed)
        accountPace.setRate(perSecond: Self.accountRate(perConnection: perConnection, perAccount: perAccount))
    }

    /// Lines a second each connection may send now.
    var linesPerSecond: Int { lineRate.load(ordering: .relaxed) }

    /// The flood control a connection is held to now.
    var flood: FloodControl<IRCInbound>.Limits {
        .init(perSecond: lineRate.load(ordering: .relaxed), heldLines: configuration.floodLines, heldBytes: configuration.floodBytes)
    }

    /// Starts listening and returns the plain port and the TLS port (the ones chosen,
    /// for port 0; nil for one not asked for). `run` binds by itself when this was not
    /// called.
    @discardableResult
    public func bind() async throws -> (plain: Int?, tls: Int?) {
        let bound = listeners.withLock { $0 }
        if !bound.isEmpty { return (bound.first { !$0.tls }?.port, bound.first { $0.tls }?.port) }
        var ports: (plain: Int?, tls: Int?) = (nil, nil)
        if let port = configuration.port {
            ports.plain = try await listen(on: port, tls: false)
        }
        if let (port, settings) = configuration.tls {
            let context = try NIOSSLContext(configuration: settings)
            tlsContext.withLock { $0 = context }
            ports.tls = try await listen(on: port, tls: true)
        }
        return ports
    }

    /// Serves new TLS connections with this configuration (a renewed certificate); those
    /// open keep theirs. Throws, changing nothing, when it makes no context.
    public func replaceTLS(_ configuration: TLSConfiguration) throws {
        let context = try NIOSSLContext(configuration: configuration)
        tlsContext.withLock { if $0 != nil { $0 = context } }
    }

    private func listen(on port: Int, tls: Bool) async throws -> Int {
        let bootstrap = ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // A client that leaves `sendQueueBytes` unread is not reading: it is closed.
            .childChannelOption(
                .writeBufferWaterMark, value: .init(low: configuration.sendQueueBytes / 4, high: configuration.sendQueueBytes)
            )
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    if tls {
                        guard let context = tlsContext.withLock({ $0 }) else { throw ChannelError.inappropriateOperationForState }
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(IRCLineDecoder()))
                    try channel.pipeline.syncOperations.addHandler(IRCChannelHandler(gateway: self))
                }
            }
        let channel = try await bootstrap.bind(host: configuration.host, port: port).get()
        let bound = channel.localAddress?.port ?? 0
        listeners.withLock { $0.append(Listener(channel: channel, port: bound, tls: tls)) }
        logger.info("IRC gateway listening on \(configuration.host):\(bound)\(tls ? " (TLS)" : "")")
        return bound
    }

    public func run() async throws {
        try await bind()
        let channels = listeners.withLock { $0.map(\.channel) }
        guard !channels.isEmpty else { return }
        try? await withTaskCancellationOrGracefulShutdownHandler {
            for channel in channels { try await channel.closeFuture.get() }
        } onCancelOrGracefulShutdown: {
            for channel in channels { channel.close(promise: nil) }
        }
        for channel in open.withLock({ Array($0.values) }) {
            let bye = IRCMessage(command: "ERROR", params: ["Closing link: the server is shutting down"])
            channel.writeAndFlush(ByteBuffer(string: bye.serialized + "\r\n")).whenComplete { _ in channel.close(promise: nil) }
        }
        logger.info("IRC gateway stopped")
    }

    /// Where the server answers HTTP (`http://HOST:PORT`), once it does: images and
    /// videos then reach IRC users with a signed link to them.
    public func serveMedia(at baseURL: String) {
        mediaBase.withLock { $0 = baseURL }
    }

    func mediaLink(_ id: String, for user: UserID) -> String? {
        guard let base = mediaBase.withLock({ $0 }), let path = engine.signedMediaPath(id, for: user) else { return nil }
        return base + path
    }

    /// The line writer of `eventLoop` and the executor its connections' lines are
    /// handled on (nil: Swift's shared pool).
    func perLoop(_ eventLoop: any EventLoop) -> (writer: IRCLineWriter, executor: (any TaskExecutor)?) {
        loops.withLock { loops in
            if let known = loops[ObjectIdentifier(eventLoop)] { return known }
            let writer = IRCLineWriter(eventLoop: eventLoop, interval: configuration.deliveryInterval, logger: logger)
            let made = (writer: writer, executor: taskExecutor(eventLoop))
            loops[ObjectIdentifier(eventLoop)] = made
            return made
        }
    }

    /// Counts a new connection in; false when the gateway is full.
    func opened(_ channel: any Channel) -> Bool {
        open.withLock { open in
            guard open.count < configuration.maxConnections else { return false }
            open[ObjectIdentifier(channel)] = channel
            return true
        }
    }

    func closed(_ channel: any Channel) {
        _ = open.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}
