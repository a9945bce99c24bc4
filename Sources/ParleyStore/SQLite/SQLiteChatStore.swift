import Foundation
import GRDB
import ParleyCore

/// `ChatStore` on a SQLite file: WAL journal, `synchronous=NORMAL` (a committed message
/// survives a crash of the process) or `FULL` (also survives power loss), and group commit
/// for messages.
///
/// ```swift
/// let store = try SQLiteChatStore(path: dataFolder + "/parley.sqlite")
/// ```
public final class SQLiteChatStore: ChatStore {
    public enum Durability: Sendable {
        case normal
        case full
    }

    let pool: DatabasePool
    let writer: MessageWriter
    let indexer: SearchIndexer
    let checkpointer: Checkpointer

    public init(path: String, durability: Durability = .normal) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
        }
        let checkpointer = Checkpointer(path: path, configuration: configuration)
        self.checkpointer = checkpointer
        var poolConfiguration = configuration
        poolConfiguration.prepareDatabase { db in checkpointer.install(on: db) }
        pool = try DatabasePool(path: path, configuration: poolConfiguration)
        try Schema.migrator.migrate(pool)
        indexer = SearchIndexer(pool: pool)
        writer = MessageWriter(pool: pool) { [indexer] in indexer.schedule() }
        indexer.schedule(after: .milliseconds(0))
    }

    /// Closes the database; later calls fail.
    public func close() throws {
        try checkpointer.close()
        try pool.close()
    }

    /// Maps SQLite's unique-constraint failures to the error a user should see.
    static func uniqueViolation(_ error: DatabaseError, _ mapping: [String: ParleyError]) -> any Error {
        guard error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE, let message = error.message else { return error }
        for (column, parleyError) in mapping where message.contains(column) {
            return parleyError
        }
        return error
    }
}
