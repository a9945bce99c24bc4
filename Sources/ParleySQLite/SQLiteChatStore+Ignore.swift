public import Foundation
import GRDB
public import ParleyCore
public import ParleyStore

/// `IgnoreStore`: whom users ignore, and each member's notification level.
extension SQLiteChatStore {
    public func setIgnore(_ on: Bool, user: UserID, target: UserID, at time: Date) async throws -> Bool {
        try await pool.write { db in
            if on {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO ignore (user_id, ignored_id, created_at) VALUES (?, ?, ?)",
                    arguments: [user.rawValue, target.rawValue, time.storedMilliseconds])
            } else {
                try db.execute(sql: "DELETE FROM ignore WHERE user_id = ? AND ignored_id = ?", arguments: [user.rawValue, target.rawValue])
            }
            return db.changesCount > 0
        }
    }

    public func ignored(by user: UserID) async throws -> [UserRef] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.id, u.handle, u.display_name, u.is_bot FROM ignore i JOIN user u ON u.id = i.ignored_id
                    WHERE i.user_id = ? ORDER BY u.handle COLLATE NOCASE
                    """, arguments: [user.rawValue]
            ).map { UserRef(id: UserID($0[0] as Int64), handle: $0[1], displayName: $0[2], isBot: $0[3]) }
        }
    }

    public func ignorers(of sender: UserID) async throws -> [UserID] {
        try await pool.read { db in
            try Int64.fetchAll(db, sql: "SELECT user_id FROM ignore WHERE ignored_id = ?", arguments: [sender.rawValue]).map { UserID($0) }
        }
    }

    public func unreadFromIgnored(by user: UserID) async throws -> [ChatID: UnreadCount] {
        try await pool.read { db in
            var counts: [ChatID: UnreadCount] = [:]
            // The messages past each read marker, from the ignored only: as many rows as
            // the user has unread, read by the (chat_id, seq) index.
            let sql = """
                SELECT m.chat_id, count(*),
                       sum(CASE WHEN m.mentions_all = 1 OR EXISTS (SELECT 1 FROM mention mn
                           WHERE mn.user_id = mb.user_id AND mn.chat_id = m.chat_id AND mn.seq = m.seq) THEN 1 ELSE 0 END)
                FROM member mb
                JOIN message m ON m.chat_id = mb.chat_id AND m.seq > mb.read_seq
                JOIN ignore i ON i.user_id = mb.user_id AND i.ignored_id = m.sender_id
                WHERE mb.user_id = ? GROUP BY m.chat_id
                """
            for row in try Row.fetchAll(db, sql: sql, arguments: [user.rawValue]) {
                counts[ChatID(row[0] as Int64)] = UnreadCount(messages: row[1], mentions: row[2])
            }
            return counts
        }
    }

    public func setNotify(_ level: NotifyLevel?, user: UserID, chat: ChatID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE member SET notify = ? WHERE user_id = ? AND chat_id = ?",
                arguments: [level?.rawValue, user.rawValue, chat.rawValue])
            return db.changesCount > 0
        }
    }
}
