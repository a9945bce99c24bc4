public import Foundation
public import ParleyCore
public import ParleyStore
import PostgresNIO

/// `ActivityStore`: when each user was last around, whether they show it, their away message and IRC playback setting.
extension PostgresChatStore {
    public func recordSeen(_ user: UserID, at time: Date) async throws {
        try await rows("UPDATE users SET last_seen_at = \(time.storedMilliseconds) WHERE id = \(user.rawValue)")
    }

    public func activity(of user: UserID) async throws -> StoredActivity? {
        try await rows("SELECT last_login_at, last_seen_at, hide_activity, away FROM users WHERE id = \(user.rawValue)").first.map { row in
            var cells = Cells(row)
            return StoredActivity(
                lastSignIn: try cells.optionalDate(), lastSeen: try cells.optionalDate(), hidden: try cells.next(), away: try cells.next())
        }
    }

    public func setActivityHidden(_ hidden: Bool, of user: UserID) async throws {
        try await rows("UPDATE users SET hide_activity = \(hidden) WHERE id = \(user.rawValue)")
    }

    public func ircPlayback(of user: UserID) async throws -> Int? {
        guard let row = try await rows("SELECT irc_playback FROM users WHERE id = \(user.rawValue)").first else { return nil }
        var cells = Cells(row)
        return try cells.next()
    }

    public func setIRCPlayback(_ limit: Int?, of user: UserID) async throws {
        try await rows("UPDATE users SET irc_playback = \(limit) WHERE id = \(user.rawValue)")
    }

    public func setAway(_ message: String?, of user: UserID) async throws -> Bool {
        try await !rows(
            "UPDATE users SET away = \(message) WHERE id = \(user.rawValue) AND away IS DISTINCT FROM \(message) RETURNING 1"
        ).isEmpty
    }

    public func away(of users: [UserID]) async throws -> [UserID: String] {
        guard !users.isEmpty else { return [:] }
        var away: [UserID: String] = [:]
        for row in try await rows("SELECT id, away FROM users WHERE away IS NOT NULL AND id = ANY(\(users.map(\.rawValue)))") {
            let (id, message) = try row.decode((Int64, String).self, context: .default)
            away[UserID(id)] = message
        }
        return away
    }
}
