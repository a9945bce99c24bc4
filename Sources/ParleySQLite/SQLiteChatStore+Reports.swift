public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

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
