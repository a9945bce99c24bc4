import Foundation
import GRDB
import Logging
import NIOWebSocket
import ParleyClient
import ParleyCore
import ParleyEngine
import ParleyLive
import ParleySQLite
import ParleyServer
import ParleyStore
import ParleyTesting
import ServiceLifecycle
import Synchronization
import WSClient

/// A real server on a free port (or a given one), over a real SQLite file. A database the
/// harness names goes with the server; one a test names is the test's to remove.
final class TestServer: Sendable {
    let port: Int
    let databasePath: String
    private let ownsDatabase: Bool
    private let store: SQLiteChatStore
    private let task: Task<Void, any Error>
    private let services: ServiceGroup
    /// The server itself, for what only it can tell (bytes waiting to go out).
    let server: ParleyServer

    var url: String { "ws://127.0.0.1:\(port)" }

    static func start(
        database: String? = nil, port: Int = 0, backlog: Int = 1024, _ configure: (inout ParleyServer.Configuration) -> Void = { _ in },
        engine configureEngine: (inout ChatEngine.Configuration) -> Void = { _ in }
    ) async throws -> TestServer {
        let path =
            database ?? FileManager.default.temporaryDirectory.appendingPathComponent("parley-server-\(UUID().uuidString).sqlite").path
        let store = try SQLiteChatStore(path: path, batchStart: ParleyServer.batchStart)
        var engineConfiguration = ChatEngine.Configuration()
        engineConfiguration.bcryptCost = 4
        configureEngine(&engineConfiguration)
        let blobs = try FileBlobStore(folder: URL(fileURLWithPath: path + "-media"))
        let engine = ChatEngine(
            store: store, blobs: blobs, bus: InProcessEventBus(backlog: backlog), configuration: engineConfiguration)
        var configuration = ParleyServer.Configuration(host: "127.0.0.1", port: port)
        // The clients of a test are well-behaved: no deadline meant for strangers may cut
        // them off on a busy machine. Tests of those deadlines set their own. A socket
        // that stays signed out on purpose may take minutes on a loaded machine (every op
        // asked in turn took 231 s once): an hour to sign in.
        configuration.handshakeTimeout = .seconds(3600)
        configuration.signInTimeout = .seconds(3600)
        configuration.pingTimeout = .seconds(120)
        configuration.databasePath = path
        configure(&configuration)
        var logger = Logger(label: "test.server")
        logger.logLevel = .critical
        let server = ParleyServer(engine: engine, configuration: configuration, logger: logger)
        store.observeCommits { duration, messages in server.recordCommit(duration: duration, messages: messages) }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = server.application { port in continuation.yield(port) }
        // If the server cannot start (say the port is still taken), the stream ends and
        // start throws instead of waiting forever.
        let services = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task {
            defer { continuation.finish() }
            try await services.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let bound = await iterator.next() else {
            try? store.close()
            throw ServerDidNotStart(port: port, reason: "\(await task.result)")
        }
        return TestServer(
            port: bound, databasePath: path, ownsDatabase: database == nil, store: store, task: task, services: services, server: server)
    }

    private init(
        port: Int, databasePath: String, ownsDatabase: Bool, store: SQLiteChatStore, task: Task<Void, any Error>, services: ServiceGroup,
        server: ParleyServer
    ) {
        self.server = server
        self.services = services
        self.port = port
        self.databasePath = databasePath
        self.ownsDatabase = ownsDatabase
        self.store = store
        self.task = task
    }

    deinit {
        guard ownsDatabase else { return }
        let log = [databasePath + "-wal", databasePath + "-shm"]
        for file in [databasePath, mediaFolder.path, DatabaseLock.file(forDatabase: databasePath)] + log {
            try? FileManager.default.removeItem(atPath: file)
        }
    }

    /// Where the server keeps media bytes.
    var mediaFolder: URL { URL(fileURLWithPath: databasePath + "-media") }

    /// Counts the stored messages, straight from the database file.
    func storedMessages() throws -> Int {
        let queue = try DatabaseQueue(path: databasePath)
        return try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM message") ?? 0 }
    }

    /// Stops as SIGTERM would (close frames, then the listener goes); cancels if that
    /// has not finished in 10 s, so a test cannot hang here.
    /// Shuts the server down gracefully and waits for it, however long a busy machine
    /// takes (the suite's time limit guards against a hang): cut short, it left clients'
    /// connections open over a closed store, and they got `internal` where they should
    /// have seen the connection go.
    func stop() async {
        await services.triggerGracefulShutdown()
        _ = try? await task.value
        try? store.close()
    }
}

struct ServerDidNotStart: Error {
    var port: Int
    var reason: String
}

/// Collects a service's events so a test can wait for the one it expects.
final class EventLog: Sendable {
    private let events = Shared<[ChatEvent]>([])
    private let pump: Task<Void, Never>

    init(_ stream: AsyncStream<ChatEvent>) {
        let events = events
        pump = Task { for await event in stream { events.withLock { $0.append(event) } } }
        _ = events
    }

    var all: [ChatEvent] { events.withLock { $0 } }

    var messages: [Message] {
        all.compactMap { if case .message(let event) = $0 { event.message } else { nil } }
    }

    /// Waits until `condition` holds for the events so far (or fails after `timeout`,
    /// which only guards against a hang).
    func wait(_ timeout: Duration = .seconds(120), until condition: ([ChatEvent]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            guard await pause(.milliseconds(20)) else { break }
        }
        return condition(all)
    }
}

/// A raw WebSocket to the server, for frames a well-behaved client would never send.
final class TestSocket: Sendable {
    private let outbound = Shared<WebSocketOutboundWriter?>(nil)
    private let inbound = Shared<(frames: [String], ended: Bool)>(([], false))
    private let task: Task<WebSocketCloseFrame?, any Error>

    init(port: Int) async throws {
        let (opened, openedContinuation) = AsyncStream.makeStream(of: Bool.self)
        let box = outbound
        let received = inbound
        var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
        configuration.autoPing = .disabled
        task = Task {
            defer {
                received.withLock { $0.ended = true }
                openedContinuation.finish()
            }
            var logger = Logger(label: "test.socket")
            logger.logLevel = .critical
            return try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/v1/ws", configuration: configuration, logger: logger) {
                inbound, outbound, _ in
                box.withLock { $0 = outbound }
                openedContinuation.yield(true)
                for try await message in inbound.messages(maxSize: 1 << 24) {
                    if case .text(let text) = message { received.withLock { $0.frames.append(text) } }
                }
            }
        }
        var iterator = opened.makeAsyncIterator()
        guard await iterator.next() == true else { throw CancellationError() }
    }

    func send(_ text: String) async throws {
        try await outbound.withLock { $0 }!.write(.text(text))
    }

    /// The next frame from the server, as JSON; nil once the socket is closed (or
    /// after `timeout`, which only guards against a hang).
    func next(timeout: Duration = .seconds(120)) async -> [String: Any]? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let (text, ended): (String?, Bool) = inbound.withLock { state in
                state.frames.isEmpty ? (nil, state.ended) : (state.frames.removeFirst(), false)
            }
            if let text { return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] }
            if ended { return nil }
            guard await pause(.milliseconds(5)) else { break }
        }
        return nil
    }

    /// Sends a request and returns its reply, collecting the events that came before it.
    func request(_ json: String, events: inout [[String: Any]]) async throws -> [String: Any]? {
        try await send(json)
        while let frame = await next() {
            if frame["event"] != nil { events.append(frame) } else { return frame }
        }
        return nil
    }

    func request(_ json: String) async throws -> [String: Any]? {
        var ignored: [[String: Any]] = []
        return try await request(json, events: &ignored)
    }

    /// How the server closed the socket.
    func closed() async -> WebSocketCloseFrame? {
        (try? await task.value) ?? nil
    }

    func close() async {
        try? await outbound.withLock { $0 }?.close(.normalClosure, reason: nil)
        _ = try? await task.value
    }
}
