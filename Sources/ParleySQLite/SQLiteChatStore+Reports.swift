public import Foundation
import GRDB
public import ParleyCore
public import ParleyStore

/// Messages reported to the server's operators.
extension SQLiteChatStore {
    static let reportSelect = """
        SELECT r.id, r.chat_id, r.place, r.seq, r.text, r.reason, r.created_at, r.resolved_at, r.resolved_by, r.note,
            s.id, s.handle, s.display_name, s.is_bot, p.id, p.handle, p.display_name, p.is_bot
        FROM report r JOIN user s ON s.id = r.sender_id JOIN user p ON p.id = r.reporter_id
        """

    static func report(_ row: Row) -> Report {
        Report(
            id: row[0], chatID: ChatID(row[1] as Int64), place: row[2], seq: row[3],
            sender: UserRef(id: UserID(row[10] as Int64), handle: row[11], displayName: row[12], isBot: row[13]), text: row[4],
            reporter: UserRef(id: UserID(row[14] as Int64), handle: row[15], displayName: row[16], isBot: row[17]), reason: row[5],
            createdAt: Rows.date(row[6] as Int64), resolvedAt: Rows.date(row[7] as Int64?), resolvedBy: row[8], note: row[9])
    }

    public func createReport(_ report: Report) async throws -> Report {
        try await pool.write { db in
            let open = try Row.fetchOne(
                db, sql: "\(Self.reportSelect) WHERE r.reporter_id = ? AND r.chat_id = ? AND r.seq = ? AND r.resolved_at IS NULL",
                arguments: [report.reporter.id.rawValue, report.chatID.rawValue, report.seq])
            if let open { return Self.report(open) }
            try db.execute(
                sql: """
                    INSERT INTO report (chat_id, place, seq, sender_id, text, reporter_id, reason, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    report.chatID.rawValue, report.place, report.seq, report.sender.id.rawValue, report.text, report.reporter.id.rawValue,
                    report.reason, report.createdAt.storedMilliseconds,
                ])
            guard let row = try Row.fetchOne(db, sql: "\(Self.reportSelect) WHERE r.id = ?", arguments: [db.lastInsertedRowID]) else {
                throw ParleyError(.internalError, "a report just made is not there")
            }
            return Self.report(row)
        }
    }

    public func reports(includingResolved: Bool, limit: Int) async throws -> [Report] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "\(Self.reportSelect) \(includingResolved ? "" : "WHERE r.resolved_at IS NULL") ORDER BY r.id DESC LIMIT ?",
                arguments: [limit]
            ).map(Self.report)
        }
    }

    public func openReports(by reporter: UserID) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM report WHERE reporter_id = ? AND resolved_at IS NULL", arguments: [reporter.rawValue]) ?? 0
        }
    }

    public func resolveReport(_ id: Int64, by operatorHandle: String, note: String?, at time: Date) async throws -> Report? {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE report SET resolved_at = ?, resolved_by = ?, note = ? WHERE id = ? AND resolved_at IS NULL",
                arguments: [time.storedMilliseconds, operatorHandle, note, id])
            guard db.changesCount > 0 else { return nil }
            return try Row.fetchOne(db, sql: "\(Self.reportSelect) WHERE r.id = ?", arguments: [id]).map(Self.report)
        }
    }
}

/// Whom users ignore.
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
}

/// Members' notification levels.
extension SQLiteChatStore {
    public func setNotify(_ level: NotifyLevel?, user: UserID, chat: ChatID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE member SET notify = ? WHERE user_id = ? AND chat_id = ?",
                arguments: [level?.rawValue, user.rawValue, chat.rawValue])
            return db.changesCount > 0
        }
    }
}
