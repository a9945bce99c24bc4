import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// `ExportStore`: what an account's export holds.
extension PostgresChatStore {
    public func phone(of user: UserID) async throws -> String? {
        guard let row = try await rows("SELECT phone FROM users WHERE id = \(user.rawValue)").first else { return nil }
        var cells = Cells(row)
        return try cells.next(String?.self)
    }

    public func messagesSent(by user: UserID, after id: Int64, limit: Int) async throws -> [Message] {
        try await rows(
            """
            SELECT \(unescaped: PostgresRows.messageColumns) FROM message m \(unescaped: PostgresRows.messageJoins)
            WHERE m.sender_id = \(user.rawValue) AND m.id > \(id) AND m.deleted_at IS NULL AND m.kind <> 'system' ORDER BY m.id LIMIT \(limit)
            """
        ).map(PostgresRows.message)
    }

    public func reactions(by user: UserID, limit: Int) async throws -> [AccountExport.Reaction] {
        try await rows(
            "SELECT chat_id, seq, emoji, reacted_at FROM reaction WHERE user_id = \(user.rawValue) ORDER BY reacted_at LIMIT \(limit)"
        )
        .map { row in
            var cells = Cells(row)
            return AccountExport.Reaction(
                chatID: ChatID(try cells.next(Int64.self)), seq: try cells.next(), emoji: try cells.next(), at: try cells.date())
        }
    }

    public func uploads(by user: UserID, limit: Int) async throws -> [String] {
        try await rows("SELECT media_id FROM media_upload WHERE user_id = \(user.rawValue) ORDER BY uploaded_at LIMIT \(limit)").map {
            row in
            var cells = Cells(row)
            return try cells.next(String.self)
        }
    }

    public func accountRecords(of user: UserID, limit: Int) async throws -> AccountExport.Records {
        let id = user.rawValue
        return AccountExport.Records(
            reminders: try await rows(
                """
                SELECT \(unescaped: Self.reminderColumns) FROM reminder WHERE user_id = \(id) ORDER BY created_at, id LIMIT \(limit)
                """
            ).map(Self.reminder),
            reportsFiled: try await rows("\(unescaped: Self.reportSelect) WHERE r.reporter_id = \(id) ORDER BY r.id LIMIT \(limit)")
                .map(Self.report),
            hooks: try await rows("\(unescaped: Self.hookSelect) WHERE h.created_by = \(id) ORDER BY h.id LIMIT \(limit)").map {
                try Self.hook($0).hook
            },
            identities: try await rows(
                "SELECT issuer, subject, linked_at FROM identity WHERE user_id = \(id) ORDER BY linked_at LIMIT \(limit)"
            ).map { row in
                var cells = Cells(row)
                return AccountExport.Identity(issuer: try cells.next(), subject: try cells.next(), linkedAt: try cells.date())
            },
            watches: try await rows("SELECT handle FROM presence_watch WHERE watcher_id = \(id) ORDER BY handle LIMIT \(limit)").map {
                row in
                var cells = Cells(row)
                return try cells.next(String.self)
            },
            invites: try await rows(
                """
                SELECT code, chat_id, created_by, expires_at, uses_left, revoked, for_user FROM invite
                WHERE created_by = \(id) OR for_user = \(id) ORDER BY created_at, code LIMIT \(limit)
                """
            ).map(Self.invite(from:)),
            signupCodes: try await rows(
                """
                SELECT \(unescaped: Self.signupColumns) FROM signup_code WHERE created_by = \(id) ORDER BY created_at, code LIMIT \(limit)
                """
            ).map(Self.signupCode),
            threads: try await rows(
                """
                SELECT chat_id, root_seq, following, read_seq FROM thread_member WHERE user_id = \(id)
                ORDER BY chat_id, root_seq LIMIT \(limit)
                """
            ).map { row in
                var cells = Cells(row)
                return AccountExport.ThreadStance(
                    chatID: ChatID(try cells.next(Int64.self)), root: try cells.next(),
                    following: ThreadFollowing(rawValue: try cells.next(String.self)) ?? .none, readSeq: try cells.next())
            })
    }
}
