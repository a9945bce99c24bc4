import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// What an account's export holds besides its chats and messages.
extension PostgresChatStore {
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
            ).map(Self.signupCode))
    }
}
