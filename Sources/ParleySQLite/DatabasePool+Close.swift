import GRDB
import GRDBSQLite

extension DatabasePool {
    /// Copies the write-ahead log into the database file and empties it, then closes.
    /// SQLite does this on its own only when the last connection to close can take the
    /// file's write lock, and a pool's last is one of its read-only readers: the log stayed
    /// behind, and the database file alone held nothing written since its last checkpoint
    /// (for a shell's store, often nothing at all). The checkpoint does not wait: a log
    /// another process is still reading keeps what that process needs.
    func closeWithEmptyLog() throws {
        try? writeWithoutTransaction { db in
            sqlite3_busy_timeout(db.sqliteConnection, 0)
            try db.checkpoint(.truncate)
        }
        try close()
    }
}
