public import Foundation
import GRDB
public import ParleyCore
public import ParleyStore

/// `ActivityStore`: when each user was last around, whether they show it, their away message and IRC playback setting.
extension SQLiteChatStore {
    public func recordSeen(_ user: UserID, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET last_seen_at = ? WHERE id = ?", arguments: [time.storedMilliseconds, user.rawValue])
        }
    }

    public func activity(of user: UserID) async throws -> StoredActivity? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT last_login_at, last_seen_at, hide_activity, away FROM user WHERE id = ?", arguments: [user.rawValue]
            ).map {
                StoredActivity(lastSignIn: Rows.date($0[0] as Int64?), lastSeen: Rows.date($0[1] as Int64?), hidden: $0[2], away: $0[3])
            }
        }
    }

    public func setActivityHidden(_ hidden: Bool, of user: UserID) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET hide_activity = ? WHERE id = ?", arguments: [hidden, user.rawValue])
        }
    }

    public func ircPlayback(of user: UserID) async throws -> Int? {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT irc_playback FROM user WHERE id = ?", arguments: [user.rawValue])
        }
    }

    public func setIRCPlayback(_ limit: Int?, of user: UserID) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET irc_playback = ? WHERE id = ?", arguments: [limit, user.rawValue])
        }
    }

    public func setAway(_ message: String?, of user: UserID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET away = ?1 WHERE id = ?2 AND away IS NOT ?1", arguments: [message, user.rawValue])
            return db.changesCount > 0
        }
    }

    public func away(of users: [UserID]) async throws -> [UserID: String] {
        try await pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT away FROM user WHERE id = ? AND away IS NOT NULL")
            var away: [UserID: String] = [:]
            for user in users { away[user] = try String.fetchOne(statement, arguments: [user.rawValue]) }
            return away
        }
    }
}
