import Foundation
import GRDB
import ParleyStore
import Synchronization

/// Keeps the full-text index off the send path. Indexing one message per transaction
/// cost more than the send itself (FTS5 writes a segment per commit); here messages are
/// indexed in batches shortly after they are stored, and a search first catches up, so
/// it never misses a message.
final class SearchIndexer: Sendable {
    private let pool: DatabasePool
    private let indexing: CoalescedWork
    private static let batchSize = 5_000

    init(pool: DatabasePool) {
        self.pool = pool
        indexing = CoalescedWork(label: "parley.search-indexer") {
            // A batch short of the limit has caught up; a later commit schedules the next.
            while (try? pool.write({ db in try Self.indexBatch(db, limit: Self.batchSize) })) ?? 0 >= Self.batchSize {}
        }
    }

    /// Indexes soon, coalescing the calls of the next `delay`.
    func schedule(after delay: DispatchTimeInterval = .milliseconds(100)) {
        indexing.schedule(after: delay)
    }

    /// Indexes every stored message not yet in the index.
    func catchUp() async throws {
        try await pool.write { db in
            while try Self.indexBatch(db, limit: Self.batchSize) > 0 {}
        }
    }

    /// Indexes up to `limit` messages after the last indexed one; returns how many.
    private static func indexBatch(_ db: Database, limit: Int) throws -> Int {
        let indexedUpTo = try Int64.fetchOne(db, sql: "SELECT indexed_up_to FROM search_state WHERE id = 1") ?? 0
        guard
            let newest = try Int64.fetchOne(
                db, sql: "SELECT max(id) FROM (SELECT id FROM message WHERE id > ? ORDER BY id LIMIT ?)", arguments: [indexedUpTo, limit])
        else { return 0 }
        try db.execute(
            sql: "INSERT INTO message_fts (rowid, text) SELECT id, text FROM message WHERE id > ? AND id <= ? ORDER BY id",
            arguments: [indexedUpTo, newest])
        let count = db.changesCount
        try db.execute(sql: "UPDATE search_state SET indexed_up_to = ? WHERE id = 1", arguments: [newest])
        return max(count, 1)
    }
}
