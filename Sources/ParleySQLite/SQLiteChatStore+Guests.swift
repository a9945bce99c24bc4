import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `GuestsStore`: guests (IRC's unregistered nicks): their handles freed, renamed, marked as bots.
extension SQLiteChatStore {
    public func retireGuest(_ user: UserID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE user SET handle = CASE WHEN instr(handle, '~') = 0 THEN handle || '~' || id ELSE handle END
                    WHERE id = ? AND is_guest
                    """,
                arguments: [user.rawValue])
            return db.changesCount > 0
        }
    }

    public func renameGuest(_ user: UserID, to handle: String, displayName: String) async throws -> Bool {
        do {
            return try await pool.write { db in
                try db.execute(
                    sql: "UPDATE user SET handle = ?, display_name = ? WHERE id = ? AND is_guest",
                    arguments: [handle, displayName, user.rawValue])
                return db.changesCount > 0
            }
        } catch let error as DatabaseError {
            throw Self.uniqueViolation(error, ["user.handle": ParleyError(.handleTaken, "the handle @\(handle) is taken")])
        }
    }

    public func markGuestAsBot(_ user: UserID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET is_bot = 1 WHERE id = ? AND is_guest", arguments: [user.rawValue])
            return db.changesCount > 0
        }
    }
}
