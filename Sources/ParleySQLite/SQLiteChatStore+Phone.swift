public import Foundation
import GRDB
public import ParleyCore
public import ParleyStore

/// `PhoneStore`: sign-in by a code sent to a phone number.
extension SQLiteChatStore {
    public func user(phone: String) async throws -> User? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Rows.userColumns) FROM user u WHERE u.phone = ?", arguments: [phone]).map { Rows.user($0) }
        }
    }

    public func codeRequests(phone: String, address: String, since time: Date) async throws -> CodeRequestCounts {
        try await pool.read { db in
            let since = time.storedMilliseconds
            let forPhone = try Row.fetchOne(
                db, sql: "SELECT count(*), max(requested_at) FROM code_request WHERE phone = ? AND requested_at >= ?",
                arguments: [phone, since])
            let fromAddress =
                try Int.fetchOne(
                    db, sql: "SELECT count(*) FROM code_request WHERE address = ? AND requested_at >= ?", arguments: [address, since]) ?? 0
            return CodeRequestCounts(
                forPhone: forPhone?[0] ?? 0, fromAddress: fromAddress, lastForPhone: Rows.date(forPhone?[1] as Int64?))
        }
    }

    public func saveCode(phone: String, codeHash: Data, expiresAt: Date, attempts: Int, address: String, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO phone_code (phone, code_hash, expires_at, attempts_left) VALUES (?, ?, ?, ?)
                    ON CONFLICT (phone) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
                        attempts_left = excluded.attempts_left
                    """,
                arguments: [phone, codeHash, expiresAt.storedMilliseconds, attempts])
            try db.execute(
                sql: "INSERT INTO code_request (phone, address, requested_at) VALUES (?, ?, ?)",
                arguments: [phone, address, time.storedMilliseconds])
            // Requests older than a day count for nothing.
            try db.execute(
                sql: "DELETE FROM code_request WHERE requested_at < ?", arguments: [time.storedMilliseconds - 24 * 3_600_000])
        }
    }

    public func checkCode(phone: String, codeHash: Data, now: Date) async throws -> CodeCheck {
        try await pool.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT code_hash, expires_at, attempts_left FROM phone_code WHERE phone = ?", arguments: [phone])
            else { return .missing }
            let stored: Data = row[0]
            let expiresAt: Int64 = row[1]
            let left: Int = row[2]
            if expiresAt <= now.storedMilliseconds {
                try db.execute(sql: "DELETE FROM phone_code WHERE phone = ?", arguments: [phone])
                return .expired
            }
            if left <= 0 { return .exhausted }
            if stored == codeHash {
                try db.execute(sql: "DELETE FROM phone_code WHERE phone = ?", arguments: [phone])
                return .valid
            }
            try db.execute(sql: "UPDATE phone_code SET attempts_left = attempts_left - 1 WHERE phone = ?", arguments: [phone])
            return .wrong(attemptsLeft: left - 1)
        }
    }
}
