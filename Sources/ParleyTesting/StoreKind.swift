import Foundation
import Logging
import ParleyCore
public import ParleyPostgres
import ParleyStore
import Synchronization

/// The stores the same test bodies run on: `@Test(arguments: StoreKind.all)`.
public enum StoreKind: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgres

    public static let all = allCases
    public var description: String { rawValue }

    /// `parley serve`'s arguments for this store: none for SQLite (in the data folder),
    /// `--postgres` and a new database's URL for PostgreSQL.
    public func serveArguments() throws -> [String] {
        switch self {
        case .sqlite: []
        case .postgres: ["--postgres", try TestPostgres.newDatabase()]
        }
    }
}

/// One PostgreSQL server for the whole test process, started on first use and stopped
/// once the process has ended; each test gets a database of its own on it.
public enum TestPostgres {
    private static let server = Mutex<Result<ThrowawayPostgres, ThrowawayPostgres.Unavailable>?>(nil)
    private static let databases = Atomic<Int>(0)

    /// The shared server, started if it is not yet.
    public static func shared() throws -> ThrowawayPostgres {
        try server.withLock { server in
            if let server { return try server.get() }
            let started: Result<ThrowawayPostgres, ThrowawayPostgres.Unavailable>
            do {
                let postgres = try ThrowawayPostgres.start()
                do {
                    try postgres.stopWhenThisProcessEnds()
                } catch {
                    postgres.stop()
                    throw error
                }
                started = .success(postgres)
            } catch let error as ThrowawayPostgres.Unavailable {
                started = .failure(error)
            } catch {
                started = .failure(ThrowawayPostgres.Unavailable(description: String(describing: error)))
            }
            server = started
            return try started.get()
        }
    }

    /// A new, empty database on the shared server; returns its URL.
    public static func newDatabase() throws -> String {
        let postgres = try shared()
        let name = "test_\(getpid())_\(databases.add(1, ordering: .relaxed).newValue)"
        try postgres.tool("createdb", ["-h", "127.0.0.1", "-p", String(postgres.port), "-U", postgres.user, name])
        return "postgres://\(postgres.user)@127.0.0.1:\(postgres.port)/\(name)"
    }

    /// A migrated store on a new database, its pool running until `stop()`.
    public static func store() async throws -> RunningPostgresStore {
        let location = try PostgresLocation(url: try newDatabase())
        var logger = Logger(label: "parley.test.postgres")
        // Pools closing at the end of each test say so at info.
        logger.logLevel = .error
        try await PostgresChatStore.prepare(location, logger: logger)
        let store = PostgresChatStore(location: location, connections: 4, logger: logger)
        return RunningPostgresStore(store: store, runner: Task { await store.run() })
    }
}

/// A PostgreSQL store whose connection pool runs in a task of its own, until `stop()`
/// or until it is released.
public final class RunningPostgresStore: Sendable {
    public let store: PostgresChatStore
    private let runner: Task<Void, Never>

    init(store: PostgresChatStore, runner: Task<Void, Never>) {
        self.store = store
        self.runner = runner
    }

    public func stop() { runner.cancel() }

    deinit { runner.cancel() }
}
