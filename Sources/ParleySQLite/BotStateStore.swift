public import Foundation
import GRDB

/// What bot plugins keep between runs, in `bots.sqlite` in the data folder: small
/// values by key (`state_get` / `state_set`) and, per chat, the last message each bot
/// was handed, so a restarted bot is not handed it again.
///
/// ```swift
/// let state = try BotStateStore(path: folder + "/bots.sqlite")
/// try state.set(bot: "dice", key: "polls", value: Data("{}".utf8))
/// ```
public final class BotStateStore: Sendable {
    /// The largest value a bot may store under one key.
    public static let maxValueBytes = 64 * 1024

    private let queue: DatabaseQueue

    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try Self.migrator.migrate(queue)
    }

    /// The store of a data folder: its `bots.sqlite`.
    public convenience init(in folder: URL) throws {
        try self.init(path: folder.appendingPathComponent("bots.sqlite").path)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE bot_state (
                        bot TEXT NOT NULL,
                        key TEXT NOT NULL,
                        value BLOB NOT NULL,
                        updated_at REAL NOT NULL,
                        PRIMARY KEY (bot, key)
                    ) WITHOUT ROWID;
                    CREATE TABLE bot_cursor (
                        bot TEXT NOT NULL,
                        chat_id INTEGER NOT NULL,
                        seq INTEGER NOT NULL,
                        PRIMARY KEY (bot, chat_id)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v2") { db in
            // A bot's schedules: the rule and data as JSON, and when each fires next.
            try db.execute(
                sql: """
                    CREATE TABLE bot_schedule (
                        bot TEXT NOT NULL,
                        name TEXT NOT NULL,
                        spec BLOB NOT NULL,
                        next_at REAL NOT NULL,
                        PRIMARY KEY (bot, name)
                    ) WITHOUT ROWID;
                    """)
        }
        return migrator
    }

    /// The JSON stored under `key`, or nil.
    public func value(bot: String, key: String) throws -> Data? {
        try queue.read { db in
            try Data.fetchOne(db, sql: "SELECT value FROM bot_state WHERE bot = ? AND key = ?", arguments: [bot, key])
        }
    }

    /// Stores `value` under `key`; nil removes the key.
    public func set(bot: String, key: String, value: Data?) throws {
        try queue.write { db in
            if let value {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO bot_state (bot, key, value, updated_at) VALUES (?, ?, ?, ?)",
                    arguments: [bot, key, value, Date().timeIntervalSince1970])
            } else {
                try db.execute(sql: "DELETE FROM bot_state WHERE bot = ? AND key = ?", arguments: [bot, key])
            }
        }
    }

    /// The sequence number of the last message of each chat handed to `bot`.
    public func cursors(bot: String) throws -> [Int64: Int64] {
        try queue.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT chat_id, seq FROM bot_cursor WHERE bot = ?", arguments: [bot])
            return Dictionary(rows.map { ($0[0], $0[1]) }, uniquingKeysWith: max)
        }
    }

    /// Moves the cursor of `bot` in `chat` forward to `seq` (never back).
    public func advance(bot: String, chat: Int64, to seq: Int64) throws {
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO bot_cursor (bot, chat_id, seq) VALUES (?, ?, ?)
                    ON CONFLICT (bot, chat_id) DO UPDATE SET seq = max(seq, excluded.seq)
                    """,
                arguments: [bot, chat, seq])
        }
    }

    /// A bot's schedules: each one's name, its rule and data as stored, and when it fires next.
    public func schedules(bot: String) throws -> [(name: String, spec: Data, next: Date)] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT name, spec, next_at FROM bot_schedule WHERE bot = ? ORDER BY next_at", arguments: [bot])
                .map { ($0[0], $0[1], Date(timeIntervalSince1970: $0[2])) }
        }
    }

    /// Keeps a schedule, replacing one of the same name.
    public func setSchedule(bot: String, name: String, spec: Data, next: Date) throws {
        try queue.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO bot_schedule (bot, name, spec, next_at) VALUES (?, ?, ?, ?)",
                arguments: [bot, name, spec, next.timeIntervalSince1970])
        }
    }

    /// Moves a schedule to its next time, or removes it (`next` nil).
    public func reschedule(bot: String, name: String, next: Date?) throws {
        try queue.write { db in
            if let next {
                try db.execute(
                    sql: "UPDATE bot_schedule SET next_at = ? WHERE bot = ? AND name = ?",
                    arguments: [next.timeIntervalSince1970, bot, name])
            } else {
                try db.execute(sql: "DELETE FROM bot_schedule WHERE bot = ? AND name = ?", arguments: [bot, name])
            }
        }
    }

    public func close() throws {
        try queue.close()
    }
}
