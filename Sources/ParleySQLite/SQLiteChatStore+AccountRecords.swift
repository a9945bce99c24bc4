import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// What an account's export holds besides its chats and messages.
extension SQLiteChatStore {
    public func accountRecords(of user: UserID, limit: Int) async throws -> AccountExport.Records {
        try await pool.read { db in
            let id = user.rawValue
            func all<T>(_ sql: String, _ arguments: StatementArguments = [], _ map: (Row) -> T) throws -> [T] {
                try Row.fetchAll(db, sql: sql + " LIMIT ?", arguments: arguments + [limit]).map(map)
            }
            return AccountExport.Records(
                reminders: try all(
                    "SELECT \(Self.reminderColumns) FROM reminder WHERE user_id = ? ORDER BY created_at, id", [id], Self.reminder),
                reportsFiled: try all("\(Self.reportSelect) WHERE r.reporter_id = ? ORDER BY r.id", [id], Self.report),
                hooks: try all("\(Self.hookSelect) WHERE h.created_by = ? ORDER BY h.id", [id], Self.hook),
                identities: try all("SELECT issuer, subject, linked_at FROM identity WHERE user_id = ? ORDER BY linked_at", [id]) {
                    AccountExport.Identity(issuer: $0[0], subject: $0[1], linkedAt: Rows.date($0[2] as Int64))
                },
                watches: try all("SELECT handle FROM presence_watch WHERE watcher_id = ? ORDER BY handle", [id]) { $0[0] },
                invites: try all(
                    "SELECT \(Self.inviteColumns) FROM invite WHERE created_by = ? OR for_user = ? ORDER BY created_at, code", [id, id],
                    Self.invite(from:)),
                signupCodes: try all(
                    "SELECT \(Self.signupColumns) FROM signup_code WHERE created_by = ? ORDER BY created_at, code", [id], Self.signupCode))
        }
    }
}
