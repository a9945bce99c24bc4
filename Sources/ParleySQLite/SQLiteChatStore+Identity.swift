public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `IdentityStore`: sign-in by an external identity provider's token.
extension SQLiteChatStore {
    public func user(issuer: String, subject: String) async throws -> User? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Rows.userColumns) FROM identity i JOIN user u ON u.id = i.user_id WHERE i.issuer = ? AND i.subject = ?",
                arguments: [issuer, subject]
            ).map { Rows.user($0) }
        }
    }

    public func linkIdentity(issuer: String, subject: String, to user: UserID, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO identity (issuer, subject, user_id, linked_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                arguments: [issuer, subject, user.rawValue, time.storedMilliseconds])
        }
    }
}
