import Logging
import NIOCore
import ParleyCore
import PostgresNIO
import Synchronization

/// A connection of its own, outside the pool, for one task that runs statement after
/// statement all day (the bus's reader, the message writer): no lease from the pool for
/// each one. It connects on first use, and again after its connection failed; `close()`
/// ends it for good.
final class DedicatedConnection: Sendable {
    private struct State {
        var connection: PostgresConnection?
        var closed = false
    }

    let location: PostgresLocation
    /// The connection's thread, as an executor: the task that uses the connection
    /// prefers it, so that a reply resumes it where it was read.
    let executor: any TaskExecutor
    private let eventLoop: any EventLoop
    private let name: String
    private let setup: [String]
    private let logger: Logger
    private let state = Mutex(State())

    /// - Parameters:
    ///   - name: what the connection is for, in errors and logs.
    ///   - setup: statements run on each new connection before its first use.
    ///   - loops: where the connection lives.
    init(location: PostgresLocation, name: String, setup: [String] = [], on loops: any EventLoopGroup, logger: Logger) {
        self.location = location
        eventLoop = loops.next()
        executor = LoopTaskExecutor(eventLoop)
        self.name = name
        self.setup = setup
        self.logger = logger
    }

    /// Runs `body` on the connection. Callers take turns (one caller at a time keeps the
    /// connection's statements in order; concurrent ones wait in its queue).
    func run<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        let connection = try await open()
        do {
            return try await body(connection)
        } catch {
            if connection.isClosed { drop(connection) }
            throw error
        }
    }

    /// Closes the connection; later runs fail as unavailable.
    func close() async {
        let connection = state.withLock { state in
            state.closed = true
            defer { state.connection = nil }
            return state.connection
        }
        try? await connection?.close()
    }

    private func open() async throws -> PostgresConnection {
        let current = try state.withLock { state in
            guard !state.closed else { throw ParleyError(.unavailable, "the database's \(name) connection is closed") }
            return state.connection
        }
        if let current, !current.isClosed { return current }
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: eventLoop, configuration: location.connectionConfiguration(), id: 0, logger: logger)
        } catch {
            throw ParleyError(.unavailable, "cannot reach PostgreSQL at \(location): \(PostgresChatStore.describe(error))")
        }
        do {
            for statement in setup { _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        } catch {
            try? await connection.close()
            throw ParleyError(.unavailable, "cannot prepare the \(name) connection: \(PostgresChatStore.describe(error))")
        }
        // Closed meanwhile, or another caller connected first: keep one, close the other.
        let (kept, extra) = state.withLock { state -> (PostgresConnection?, PostgresConnection?) in
            if state.closed { return (nil, connection) }
            if let other = state.connection, !other.isClosed { return (other, connection) }
            state.connection = connection
            return (connection, nil)
        }
        try? await extra?.close()
        guard let kept else { throw ParleyError(.unavailable, "the database's \(name) connection is closed") }
        return kept
    }

    private func drop(_ connection: PostgresConnection) {
        state.withLock { state in
            if state.connection === connection { state.connection = nil }
        }
    }
}

/// Runs a task's jobs on one event loop.
final class LoopTaskExecutor: TaskExecutor {
    private let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
