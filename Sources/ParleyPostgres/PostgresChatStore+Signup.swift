public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

// Media

/// Sign-up codes, for a server that registers by invitation.
extension PostgresChatStore {
    public func createSignupCode(_ code: SignupCode) async throws {
        try await rows(
            """
            INSERT INTO signup_code (code, created_by, created_at, expires_at, uses_left)
            VALUES (\(code.code), \(code.createdBy?.rawValue), \(code.createdAt.storedMilliseconds), \(code.expiresAt?.storedMilliseconds),
                    \(code.usesLeft.map(Int64.init)))
            """)
    }

    static let signupColumns = "code, created_by, created_at, expires_at, uses_left, revoked"

    static func signupCode(_ row: PostgresRow) throws -> SignupCode {
        var cells = Cells(row)
        return SignupCode(
            code: try cells.next(), createdBy: try cells.next(Int64?.self).map { UserID($0) }, createdAt: try cells.date(),
            expiresAt: try cells.optionalDate(), usesLeft: try cells.next(Int64?.self).map { Int($0) }, revoked: try cells.next())
    }

    public func signupCode(_ code: String) async throws -> SignupCode? {
        try await rows("SELECT \(unescaped: Self.signupColumns) FROM signup_code WHERE code = \(code)").first.map(Self.signupCode)
    }

    public func signupCodes(usableAt now: Date) async throws -> [SignupCode] {
        try await rows(
            """
            SELECT \(unescaped: Self.signupColumns) FROM signup_code
            WHERE NOT revoked AND (expires_at IS NULL OR expires_at > \(now.storedMilliseconds)) AND (uses_left IS NULL OR uses_left > 0)
            ORDER BY created_at DESC, code
            """
        ).map(Self.signupCode)
    }

    public func revokeSignupCode(_ code: String) async throws {
        try await rows("UPDATE signup_code SET revoked = true WHERE code = \(code)")
    }

    public func bots(ownedBy owner: UserID) async throws -> [User] {
        try await rows(
            "SELECT \(unescaped: PostgresRows.userColumns) FROM users u WHERE u.owner_id = \(owner.rawValue) ORDER BY lower(u.handle)"
        )
        .map(PostgresRows.user)
    }
}
