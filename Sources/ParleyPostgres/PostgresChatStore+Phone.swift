public import Foundation
public import ParleyCore
public import ParleyStore
import PostgresNIO

/// `PhoneStore`: sign-in by a code sent to a phone number.
extension PostgresChatStore {
    public func user(phone: String) async throws -> User? {
        try await oneUser("u.phone = \(phone)")
    }

    public func codeRequests(phone: String, address: String, since time: Date) async throws -> CodeRequestCounts {
        let since = time.storedMilliseconds
        guard
            let row = try await rows(
                """
                SELECT (SELECT count(*) FROM code_request WHERE phone = \(phone) AND requested_at >= \(since)),
                       (SELECT max(requested_at) FROM code_request WHERE phone = $1 AND requested_at >= $2),
                       (SELECT count(*) FROM code_request WHERE address = \(address) AND requested_at >= $2)
                """
            ).first
        else { return CodeRequestCounts(forPhone: 0, fromAddress: 0, lastForPhone: nil) }
        var cells = Cells(row)
        let forPhone = try cells.next(Int64.self)
        let last = try cells.optionalDate()
        return CodeRequestCounts(forPhone: Int(forPhone), fromAddress: Int(try cells.next(Int64.self)), lastForPhone: last)
    }

    public func saveCode(phone: String, codeHash: Data, expiresAt: Date, attempts: Int, address: String, at time: Date) async throws {
        let now = time.storedMilliseconds
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO phone_code (phone, code_hash, expires_at, attempts_left)
                VALUES (\(phone), \(codeHash), \(expiresAt.storedMilliseconds), \(Int64(attempts)))
                ON CONFLICT (phone) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
                    attempts_left = excluded.attempts_left
                """, logger: logger)
            try await connection.query(
                "INSERT INTO code_request (phone, address, requested_at) VALUES (\(phone), \(address), \(now))", logger: logger)
            // Requests older than a day count for nothing.
            try await connection.query("DELETE FROM code_request WHERE requested_at < \(now &- 24 * 3_600_000)", logger: logger)
        }
    }

    public func checkCode(phone: String, codeHash: Data, now: Date) async throws -> CodeCheck {
        try await transaction { connection in
            guard
                let row = try await connection.query(
                    "SELECT code_hash, expires_at, attempts_left FROM phone_code WHERE phone = \(phone) FOR UPDATE", logger: logger
                ).collect().first
            else { return .missing }
            let (stored, expiresAt, left) = try row.decode((Data, Int64, Int64).self)
            if expiresAt <= now.storedMilliseconds {
                try await connection.query("DELETE FROM phone_code WHERE phone = \(phone)", logger: logger)
                return .expired
            }
            if left <= 0 { return .exhausted }
            if stored == codeHash {
                try await connection.query("DELETE FROM phone_code WHERE phone = \(phone)", logger: logger)
                return .valid
            }
            try await connection.query("UPDATE phone_code SET attempts_left = attempts_left - 1 WHERE phone = \(phone)", logger: logger)
            return .wrong(attemptsLeft: Int(left - 1))
        }
    }
}
