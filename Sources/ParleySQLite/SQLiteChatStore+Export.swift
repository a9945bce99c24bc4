import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `ExportStore`: what an account's export holds.
extension SQLiteChatStore {
    public func phone(of user: UserID) async throws -> String? {
        try await pool.read { db in try String.fetchOne(db, sql: "SELECT phone FROM user WHERE id = ?", arguments: [user.rawValue]) }
    }

    public func messagesSent(by user: UserID, after id: Int64, limit: Int) async throws -> [Message] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Rows.messageColumns) FROM message m \(Rows.messageJoins)
                    WHERE m.sender_id = ? AND m.id > ? AND m.deleted_at IS NULL AND m.kind != 'system' ORDER BY m.id LIMIT ?
                    """, arguments: [user.rawValue, id, limit]
            ).map { Rows.message($0) }
        }
    }

    public func reactions(by user: UserID, limit: Int) async throws -> [AccountExport.Reaction] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT chat_id, seq, emoji, reacted_at FROM reaction WHERE user_id = ? ORDER BY reacted_at LIMIT ?",
                arguments: [user.rawValue, limit]
            ).map { AccountExport.Reaction(chatID: ChatID($0[0] as Int64), seq: $0[1], emoji: $0[2], at: Rows.date($0[3] as Int64)) }
        }
    }

    public func uploads(by user: UserID, limit: Int) async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(
                db, sql: "SELECT media_id FROM media_upload WHERE user_id = ? ORDER BY uploaded_at LIMIT ?",
                arguments: [user.rawValue, limit])
        }
    }

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
                    "SELECT \(Self.signupColumns) FROM signup_code WHERE created_by = ? ORDER BY created_at, code", [id], Self.signupCode),
                threads: try all(
                    "SELECT chat_id, root_seq, following, read_seq FROM thread_member WHERE user_id = ? ORDER BY chat_id, root_seq", [id]
                ) {
                    AccountExport.ThreadStance(
                        chatID: ChatID($0[0] as Int64), root: $0[1], following: ThreadFollowing(rawValue: $0[2]) ?? .none, readSeq: $0[3])
                })
        }
    }
}
