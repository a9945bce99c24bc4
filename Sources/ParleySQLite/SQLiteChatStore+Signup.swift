public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `SignupStore`: sign-up codes, for a server that registers by invitation, and the bots an owner made.
extension SQLiteChatStore {
    public func createSignupCode(_ code: SignupCode) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO signup_code (code, created_by, created_at, expires_at, uses_left) VALUES (?, ?, ?, ?, ?)",
                arguments: [
                    code.code, code.createdBy?.rawValue, code.createdAt.storedMilliseconds, code.expiresAt?.storedMilliseconds,
                    code.usesLeft,
                ])
        }
    }

    static let signupColumns = "code, created_by, created_at, expires_at, uses_left, revoked"

    static func signupCode(_ row: Row) -> SignupCode {
        SignupCode(
            code: row[0], createdBy: (row[1] as Int64?).map { UserID($0) }, createdAt: Rows.date(row[2]),
            expiresAt: Rows.date(row[3] as Int64?), usesLeft: row[4], revoked: row[5])
    }

    public func signupCode(_ code: String) async throws -> SignupCode? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.signupColumns) FROM signup_code WHERE code = ?", arguments: [code])
                .map(Self.signupCode)
        }
    }

    public func signupCodes(usableAt now: Date) async throws -> [SignupCode] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.signupColumns) FROM signup_code
                    WHERE revoked = 0 AND (expires_at IS NULL OR expires_at > ?) AND (uses_left IS NULL OR uses_left > 0)
                    ORDER BY created_at DESC, code
                    """,
                arguments: [now.storedMilliseconds]
            ).map(Self.signupCode)
        }
    }

    public func revokeSignupCode(_ code: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE signup_code SET revoked = 1 WHERE code = ?", arguments: [code])
        }
    }

    /// Takes one use of a code within the transaction that creates the account.
    static func useSignupCode(_ db: Database, _ code: String) throws {
        try db.execute(
            sql: """
                UPDATE signup_code SET uses_left = uses_left - 1
                WHERE code = ? AND revoked = 0 AND (uses_left IS NULL OR uses_left > 0)
                """,
            arguments: [code])
        guard db.changesCount == 1 else { throw ParleyError(.inviteUsedUp, "this sign-up code has been used up") }
    }

    public func bots(ownedBy owner: UserID) async throws -> [User] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Rows.userColumns) FROM user u WHERE u.owner_id = ? ORDER BY u.handle", arguments: [owner.rawValue]
            ).map { Rows.user($0) }
        }
    }
}
