public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// Messages reported to the server's operators.
extension PostgresChatStore {
    static let reportSelect = """
        SELECT r.id, r.chat_id, r.place, r.seq, r.text, r.reason, r.created_at, r.resolved_at, r.resolved_by, r.note,
            s.id, s.handle, s.display_name, s.is_bot, p.id, p.handle, p.display_name, p.is_bot
        FROM report r JOIN users s ON s.id = r.sender_id JOIN users p ON p.id = r.reporter_id
        """

    static func report(_ row: PostgresRow) throws -> Report {
        var cells = Cells(row)
        let id: Int64 = try cells.next()
        let chat = ChatID(try cells.next(Int64.self))
        let place: String = try cells.next()
        let seq: Int64 = try cells.next()
        let text: String = try cells.next()
        let reason: String? = try cells.next()
        let createdAt = try cells.date()
        let resolvedAt = try cells.optionalDate()
        let resolvedBy: String? = try cells.next()
        let note: String? = try cells.next()
        let sender = UserRef(
            id: UserID(try cells.next(Int64.self)), handle: try cells.next(), displayName: try cells.next(), isBot: try cells.next())
        let reporter = UserRef(
            id: UserID(try cells.next(Int64.self)), handle: try cells.next(), displayName: try cells.next(), isBot: try cells.next())
        return Report(
            id: id, chatID: chat, place: place, seq: seq, sender: sender, text: text, reporter: reporter, reason: reason,
            createdAt: createdAt, resolvedAt: resolvedAt, resolvedBy: resolvedBy, note: note)
    }

    public func createReport(_ report: Report) async throws -> Report {
        try await transaction { connection in
            let open = try await connection.query(
                """
                \(unescaped: Self.reportSelect) WHERE r.reporter_id = \(report.reporter.id.rawValue)
                AND r.chat_id = \(report.chatID.rawValue) AND r.seq = \(report.seq) AND r.resolved_at IS NULL
                """, logger: logger
            ).collect()
            if let row = open.first { return try Self.report(row) }
            let made = try await connection.query(
                """
                INSERT INTO report (chat_id, place, seq, sender_id, text, reporter_id, reason, created_at)
                VALUES (\(report.chatID.rawValue), \(report.place), \(report.seq), \(report.sender.id.rawValue), \(report.text),
                    \(report.reporter.id.rawValue), \(report.reason), \(report.createdAt.storedMilliseconds))
                RETURNING id
                """, logger: logger
            ).collect()
            guard let inserted = made.first else { throw ParleyError(.internalError, "a report insert returned no id") }
            var cells = Cells(inserted)
            let id: Int64 = try cells.next()
            guard let row = try await connection.query("\(unescaped: Self.reportSelect) WHERE r.id = \(id)", logger: logger).collect().first
            else { throw ParleyError(.internalError, "a report just made is not there") }
            return try Self.report(row)
        }
    }

    public func reports(includingResolved: Bool, limit: Int) async throws -> [Report] {
        try await rows(
            "\(unescaped: Self.reportSelect) \(unescaped: includingResolved ? "" : "WHERE r.resolved_at IS NULL") ORDER BY r.id DESC LIMIT \(limit)"
        ).map(Self.report)
    }

    public func openReports(by reporter: UserID) async throws -> Int {
        guard let row = try await rows("SELECT count(*) FROM report WHERE reporter_id = \(reporter.rawValue) AND resolved_at IS NULL").first
        else { return 0 }
        var cells = Cells(row)
        return Int(try cells.next(Int64.self))
    }

    public func resolveReport(_ id: Int64, by operatorHandle: String, note: String?, at time: Date) async throws -> Report? {
        let updated = try await rows(
            """
            UPDATE report SET resolved_at = \(time.storedMilliseconds), resolved_by = \(operatorHandle), note = \(note)
            WHERE id = \(id) AND resolved_at IS NULL RETURNING id
            """)
        guard !updated.isEmpty else { return nil }
        return try await rows("\(unescaped: Self.reportSelect) WHERE r.id = \(id)").first.map(Self.report)
    }
}
