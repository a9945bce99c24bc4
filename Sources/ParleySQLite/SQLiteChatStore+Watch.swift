import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `WatchStore`: presence watches (IRC's MONITOR), handles, taken or not, whose comings
/// and goings a user is told of.
extension SQLiteChatStore {
    public func watchPresence(of handles: [String], by watcher: UserID, limit: Int) async throws -> [String] {
        try await pool.write { db in
            var kept: [String] = []
            for handle in handles {
                let count =
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM presence_watch WHERE watcher_id = ?", arguments: [watcher.rawValue])
                    ?? 0
                let known =
                    try Bool.fetchOne(
                        db, sql: "SELECT 1 FROM presence_watch WHERE handle = ? AND watcher_id = ?", arguments: [handle, watcher.rawValue])
                    ?? false
                guard known || count < limit else { break }
                try db.execute(
                    sql: "INSERT OR IGNORE INTO presence_watch (handle, watcher_id) VALUES (?, ?)", arguments: [handle, watcher.rawValue])
                kept.append(handle)
            }
            return kept
        }
    }

    public func unwatchPresence(of handles: [String]?, by watcher: UserID) async throws {
        try await pool.write { db in
            guard let handles else {
                try db.execute(sql: "DELETE FROM presence_watch WHERE watcher_id = ?", arguments: [watcher.rawValue])
                return
            }
            for handle in handles {
                try db.execute(
                    sql: "DELETE FROM presence_watch WHERE handle = ? AND watcher_id = ?", arguments: [handle, watcher.rawValue])
            }
        }
    }

    public func watchedHandles(by watcher: UserID) async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT handle FROM presence_watch WHERE watcher_id = ? ORDER BY handle", arguments: [watcher.rawValue])
        }
    }

    public func presenceWatchers(of handle: String) async throws -> [UserID] {
        try await pool.read { db in
            try Int64.fetchAll(db, sql: "SELECT watcher_id FROM presence_watch WHERE handle = ?", arguments: [handle]).map { UserID($0) }
        }
    }
}
