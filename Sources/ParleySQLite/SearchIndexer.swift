import Foundation
import GRDB
import ParleyStore

/// The full-text index, kept off the send path in a database file of its own beside the
/// store's (`<path>-search`, named the way SQLite names its log and shared memory).
///
/// Indexing one message per transaction cost more than the send itself (FTS5 writes a
/// segment per commit), so messages are indexed in batches shortly after they are
/// stored, and a search first catches up, so it never misses a message. In the store's
/// own file, those batches held its only write lock while sends waited behind them
/// (about a fifth of the closed loop's p99); in a file of their own they take only this
/// file's lock, and read the messages from the store's file the way any reader does.
///
/// The index holds only what can be rebuilt: edits and deletions are noted in the
/// store's `search_change` in their own transaction, applied here at the next batch and
/// then dropped by the store (`SQLiteChatStore.pruneSearchChanges`) but for the newest;
/// a file that is missing, that indexed more than the store holds (a store restored
/// from an older copy), or that SQLite cannot read, is rebuilt from the messages.
final class SearchIndexer: Sendable {
    private let pool: DatabasePool
    private let indexing: CoalescedWork
    private static let batchSize = 5_000

    /// The index file for the store at `storePath`.
    static func path(forStore storePath: String) -> String { storePath + "-search" }

    /// Opens the index beside the store at `storePath`; an index file SQLite cannot read
    /// (damaged, or not a database) is removed and made anew, since it holds nothing the
    /// messages do not.
    static func open(storePath: String, configuration: Configuration) throws -> SearchIndexer {
        do {
            return try SearchIndexer(storePath: storePath, configuration: configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            let path = Self.path(forStore: storePath)
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            return try SearchIndexer(storePath: storePath, configuration: configuration)
        }
    }

    private init(storePath: String, configuration: Configuration) throws {
        let path = Self.path(forStore: storePath)
        SQLiteChatStore.createOwnerOnly(path)
        var configuration = configuration
        configuration.prepareDatabase { db in
            // The store's file is read here, never written: its write lock stays the sends'.
            try db.execute(sql: "ATTACH DATABASE ? AS store", arguments: [storePath])
        }
        let pool = try DatabasePool(path: path, configuration: configuration)
        self.pool = pool
        try pool.writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE IF NOT EXISTS main.message_fts USING fts5(text);
                    CREATE TABLE IF NOT EXISTS main.search_state (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        indexed_up_to INTEGER NOT NULL,
                        changes_up_to INTEGER NOT NULL
                    );
                    INSERT OR IGNORE INTO main.search_state (id, indexed_up_to, changes_up_to) VALUES (1, 0, 0);
                    """)
        }
        // Last of all the process's threads: a search catches up by itself, so the index
        // may lag behind while the machine is busy.
        indexing = CoalescedWork(label: "parley-index", nice: 19) {
            // Until a batch has caught up (or fails); a later commit schedules the next.
            while (try? pool.writeWithoutTransaction({ db in try Self.indexBatch(db) })) == false {}
        }
    }

    /// Indexes soon, coalescing the calls of the next `delay`. A second by default: a
    /// batch waits for nothing of the store's, so a larger one costs sends nothing, and
    /// fewer, larger batches write fewer FTS5 segments (a search catches up first anyway).
    func schedule(after delay: DispatchTimeInterval = .milliseconds(1_000)) {
        indexing.schedule(after: delay)
    }

    /// Indexes every stored message, edit and deletion not yet in the index.
    func catchUp() async throws {
        while try await !pool.writeWithoutTransaction({ db in try Self.indexBatch(db) }) {}
    }

    /// Finds messages on a connection that sees the index as `main` and the store's
    /// tables as `store` (unqualified names reach both: the index names none of the store's).
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await pool.read(body)
    }

    /// The last of the store's `search_change` rows the index has applied (0 for none):
    /// the store may drop the rows before it. Read from the index's file, so it counts
    /// what any process's indexer applied.
    func changesApplied() throws -> Int64 {
        try pool.read { db in try Int64.fetchOne(db, sql: "SELECT changes_up_to FROM main.search_state WHERE id = 1") ?? 0 }
    }

    /// Waits for a running batch, then closes the index's file; no batch starts after.
    func close() throws {
        indexing.close()
        try pool.closeWithEmptyLog()
    }

    /// Indexes up to `batchSize` messages after the last indexed one and applies the
    /// edits and deletions noted since the last batch; returns whether that caught up
    /// with the store (as of the batch's snapshot, which began after the call).
    ///
    /// The transaction is deferred, so that it locks only the file it writes: its first
    /// statement takes the index's write lock (another process's indexer waits there),
    /// and the store's file is only read, from one snapshot for the whole batch.
    private static func indexBatch(_ db: Database) throws -> Bool {
        var indexed = 0
        try db.inTransaction(.deferred) {
            try db.execute(sql: "UPDATE main.search_state SET indexed_up_to = indexed_up_to WHERE id = 1")
            guard let state = try Row.fetchOne(db, sql: "SELECT indexed_up_to, changes_up_to FROM main.search_state WHERE id = 1")
            else { return .rollback }
            var indexedUpTo: Int64 = state[0]
            var changesUpTo: Int64 = state[1]
            let storeNewest = try Int64.fetchOne(db, sql: "SELECT coalesce(max(id), 0) FROM store.message") ?? 0
            let storeChanges = try Int64.fetchOne(db, sql: "SELECT coalesce(max(seq), 0) FROM store.search_change") ?? 0
            if indexedUpTo > storeNewest || changesUpTo > storeChanges {
                // Not this store's index (the store was replaced by an older copy): start over.
                try db.execute(sql: "DELETE FROM main.message_fts")
                (indexedUpTo, changesUpTo) = (0, 0)
            }
            let next = try Row.fetchOne(
                db, sql: "SELECT max(id), count(*) FROM (SELECT id FROM store.message WHERE id > ? ORDER BY id LIMIT ?)",
                arguments: [indexedUpTo, batchSize])
            if let next, let newest: Int64 = next[0] {
                try db.execute(
                    sql: """
                        INSERT INTO main.message_fts (rowid, text)
                        SELECT id, text FROM store.message WHERE id > ? AND id <= ? ORDER BY id
                        """, arguments: [indexedUpTo, newest])
                indexed = next[1]
                indexedUpTo = newest
            }
            // An edited or deleted message already indexed is indexed again with its
            // text now (a deleted one's is empty, and one gone by retention has none);
            // one not indexed yet will be, as it is.
            let changed = try Row.fetchAll(
                db,
                sql: """
                    SELECT c.message_id, coalesce(m.text, '') FROM
                        (SELECT DISTINCT message_id FROM store.search_change WHERE seq > ? AND message_id <= ?) c
                    LEFT JOIN store.message m ON m.id = c.message_id
                    """, arguments: [changesUpTo, indexedUpTo])
            for row in changed {
                let id: Int64 = row[0]
                let text: String = row[1]
                try db.execute(sql: "DELETE FROM main.message_fts WHERE rowid = ?", arguments: [id])
                if !text.isEmpty {
                    try db.execute(sql: "INSERT INTO main.message_fts (rowid, text) VALUES (?, ?)", arguments: [id, text])
                }
            }
            changesUpTo = max(changesUpTo, storeChanges)
            try db.execute(
                sql: "UPDATE main.search_state SET indexed_up_to = ?, changes_up_to = ? WHERE id = 1",
                arguments: [indexedUpTo, changesUpTo])
            return .commit
        }
        // A full batch may have left messages, and the edits of those, for the next.
        return indexed < batchSize
    }
}
