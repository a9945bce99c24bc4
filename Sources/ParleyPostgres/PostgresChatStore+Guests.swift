import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// `GuestsStore`: guests (IRC's unregistered nicks): their handles freed, renamed, marked as bots.
extension PostgresChatStore {
    public func retireGuest(_ user: UserID) async throws -> Bool {
        try await !rows(
            """
            UPDATE users SET handle = CASE WHEN position('~' in handle) = 0 THEN handle || '~' || id ELSE handle END
            WHERE id = \(user.rawValue) AND is_guest RETURNING 1
            """
        ).isEmpty
    }

    public func renameGuest(_ user: UserID, to handle: String, displayName: String) async throws -> Bool {
        do {
            return try await !rows(
                "UPDATE users SET handle = \(handle), display_name = \(displayName) WHERE id = \(user.rawValue) AND is_guest RETURNING 1"
            ).isEmpty
        } catch {
            throw Self.uniqueViolation(error, ["users_handle": ParleyError(.handleTaken, "the handle @\(handle) is taken")])
        }
    }

    public func markGuestAsBot(_ user: UserID) async throws -> Bool {
        try await !rows("UPDATE users SET is_bot = true WHERE id = \(user.rawValue) AND is_guest RETURNING 1").isEmpty
    }
}
