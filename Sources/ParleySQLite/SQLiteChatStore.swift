import Foundation
import GRDB
import ParleyCore
public import ParleyStore

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

    /// Page cache per connection, in KiB (SQLite's default is 2,000). A send touches a
    /// leaf of each index on `message`, the client-id one at a random place; once a
    /// server holds some history those pages outgrow 2 MB, and with the default a
    /// send's commit took twice as long (p50 0.4 ms before 28,000 messages, 0.7–0.9 ms
    /// after, under 2,000 sends/s). Pages are only held once read.
    static let cacheKiB = 32_768

    /// The page size of a new store file, in bytes (SQLite's default is 4,096). A send's
    /// commit writes each page it changes whole into the log, about seven of them (the
    /// message, its two indexes, its event, the chat's row, the sender's membership and its
    /// index), and a checkpoint copies them again: a quarter of the bytes with 1 KiB pages
    /// (docs/performance.md's history in git, "28 November"). A file that exists keeps the size it
    /// was made with; the search index's file keeps the default, which suits its segments.
    static let newFilePageSize = 1_024

    let pool: DatabasePool
    let writer: MessageWriter
    /// Events kept for resuming across restarts, once a bus starts it.
    public let journal: SQLiteEventJournal
    let indexer: SearchIndexer
    let checkpointer: Checkpointer
    /// Held while the store is open: see `DatabaseLock`.
    public let lock: DatabaseLock

    /// Opens (or creates) the database at `path`, locked for `access`: a server opens
    /// it `.exclusive`, anything else `.shared`; either fails with `unavailable` while
    /// the other kind has it open. A server passes its `batchStart`, so that sends read
    /// in one turn of an event loop share a commit.
    public init(
        path: String, durability: Durability = .normal, access: DatabaseLock.Access = .shared, batchStart: BatchStart = .immediately
    ) throws {
        lock = try DatabaseLock(databasePath: path, access: access)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: durability == .full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA cache_size = -\(Self.cacheKiB)")
        }
        Self.createOwnerOnly(path)
        let checkpointer = Checkpointer(path: path, configuration: configuration)
        self.checkpointer = checkpointer
        var poolConfiguration = configuration
        poolConfiguration.prepareDatabase { db in
            // Only a file not yet made takes it; SQLite ignores it for any other.
            try db.execute(sql: "PRAGMA page_size = \(Self.newFilePageSize)")
            checkpointer.install(on: db)
        }
        pool = try DatabasePool(path: path, configuration: poolConfiguration)
        try Schema.migrator.migrate(pool)
        indexer = try SearchIndexer.open(storePath: path, configuration: configuration)
        journal = try SQLiteEventJournal(pool: pool)
        writer = MessageWriter(pool: pool, journal: journal, start: batchStart) { [indexer] in indexer.schedule() }
        // Housekeeping: a store that cannot prune now (another process writing) opens anyway.
        try? pruneSearchChanges()
        indexer.schedule(after: .milliseconds(0))
    }

    /// Creates the database file at `path` readable by its owner only, unless it exists:
    /// SQLite gives the log and shared-memory files the database's permissions. The
    /// store's file and the search index's (which holds the messages' words) both are.
    static func createOwnerOnly(_ path: String) {
        let created = Foundation.open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        if created >= 0 { Foundation.close(created) }
    }

    /// Drops the edits and deletions the search index has applied (see `SearchIndexer`),
    /// but the newest of them: the index compares its place with the newest row to tell
    /// a store restored from an older copy. At every open, and in a server's upkeep; the
    /// store's write lock is taken only when there is something to drop. Blocks for a
    /// read of each file and, at most, one short write.
    func pruneSearchChanges() throws {
        let applied = try indexer.changesApplied()
        let due = try pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM search_change WHERE seq < ? LIMIT 1", arguments: [applied]) ?? false
        }
        guard due else { return }
        try pool.write { db in try db.execute(sql: "DELETE FROM search_change WHERE seq < ?", arguments: [applied]) }
    }

    /// Hands `commit` the duration and message count of each committed batch of
    /// messages (for a server's metrics); one observer at a time.
    public func observeCommits(_ commit: @escaping @Sendable (Duration, Int) -> Void) {
        writer.observe(commit)
    }

    /// The database file, whose size (and its log's) a server reports.
    public var path: String { pool.path }

    /// Closes the database and releases its lock; later calls fail. The log is copied into
    /// the database file first, so that the file alone holds everything (a backup by `cp`
    /// of a closed store needs no `-wal`).
    public func close() throws {
        defer { lock.release() }
        journal.flush()
        try indexer.close()
        try checkpointer.close()
        try pool.closeWithEmptyLog()
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
