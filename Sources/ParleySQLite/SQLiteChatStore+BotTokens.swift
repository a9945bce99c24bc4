public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// Bot tokens.
extension SQLiteChatStore {
    public func createBotToken(bot: UserID, name: String, tokenHash: Data, at time: Date) async throws -> BotToken {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO bot_token (user_id, name, token_hash, created_at) VALUES (?, ?, ?, ?)",
                arguments: [bot.rawValue, name, tokenHash, time.storedMilliseconds])
            guard let row = try Row.fetchOne(db, sql: "\(Self.botTokenSelect) WHERE t.id = ?", arguments: [db.lastInsertedRowID]) else {
                throw ParleyError(.internalError, "a bot token just made is not there")
            }
            return Self.botToken(row)
        }
    }

    private static let botTokenSelect = """
        SELECT t.id, t.name, t.created_at, t.last_used_at, u.id, u.handle, u.display_name, u.is_bot
        FROM bot_token t JOIN user u ON u.id = t.user_id
        """

    private static func botToken(_ row: Row) -> BotToken {
        BotToken(
            id: row[0], bot: UserRef(id: UserID(row[4] as Int64), handle: row[5], displayName: row[6], isBot: row[7]), name: row[1],
            createdAt: Rows.date(row[2] as Int64), lastUsedAt: Rows.date(row[3] as Int64?))
    }

    public func botTokens(of bot: UserID) async throws -> [BotToken] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "\(Self.botTokenSelect) WHERE t.user_id = ? ORDER BY t.id", arguments: [bot.rawValue])
                .map(Self.botToken)
        }
    }

    public func botToken(tokenHash: Data) async throws -> BotToken? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "\(Self.botTokenSelect) WHERE t.token_hash = ?", arguments: [tokenHash]).map(Self.botToken)
        }
    }

    public func deleteBotToken(_ id: Int64, of bot: UserID) async throws -> [Data]? {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM bot_token WHERE id = ? AND user_id = ?", arguments: [id, bot.rawValue])
            guard db.changesCount > 0 else { return nil }
            let sessions = try Data.fetchAll(db, sql: "SELECT token_hash FROM session WHERE bot_token_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM session WHERE bot_token_id = ?", arguments: [id])
            return sessions
        }
    }

    public func sessionOpened(tokenHash: Data, withBotToken id: Int64, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE session SET bot_token_id = ? WHERE token_hash = ?", arguments: [id, tokenHash])
            try db.execute(sql: "UPDATE bot_token SET last_used_at = ? WHERE id = ?", arguments: [time.storedMilliseconds, id])
        }
    }
}
