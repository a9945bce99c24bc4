import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// `WatchStore`: presence watches (IRC's MONITOR), handles, taken or not, whose comings
/// and goings a user is told of.
extension PostgresChatStore {
    public func watchPresence(of handles: [String], by watcher: UserID, limit: Int) async throws -> [String] {
        try await transaction { connection in
            var kept: [String] = []
            for handle in handles {
                let count =
                    try await connection.query(
                        "SELECT count(*) FROM presence_watch WHERE watcher_id = \(watcher.rawValue)", logger: logger
                    ).collect().first?.decode(Int64.self) ?? 0
                let known = try await !connection.query(
                    "SELECT 1 FROM presence_watch WHERE handle = \(handle) AND watcher_id = \(watcher.rawValue)", logger: logger
                ).collect().isEmpty
                guard known || count < Int64(limit) else { break }
                try await connection.query(
                    "INSERT INTO presence_watch (handle, watcher_id) VALUES (\(handle), \(watcher.rawValue)) ON CONFLICT DO NOTHING",
                    logger: logger)
                kept.append(handle)
            }
            return kept
        }
    }

    public func unwatchPresence(of handles: [String]?, by watcher: UserID) async throws {
        guard let handles else {
            try await rows("DELETE FROM presence_watch WHERE watcher_id = \(watcher.rawValue)")
            return
        }
        try await rows("DELETE FROM presence_watch WHERE watcher_id = \(watcher.rawValue) AND handle = ANY(\(handles))")
    }

    public func watchedHandles(by watcher: UserID) async throws -> [String] {
        try await rows("SELECT handle FROM presence_watch WHERE watcher_id = \(watcher.rawValue) ORDER BY handle").map {
            try $0.decode(String.self)
        }
    }

    public func presenceWatchers(of handle: String) async throws -> [UserID] {
        try await rows("SELECT watcher_id FROM presence_watch WHERE handle = \(handle)").map { UserID(try $0.decode(Int64.self)) }
    }
}
