public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// Bot tokens.
extension PostgresChatStore {
    public func createBotToken(bot: UserID, name: String, tokenHash: Data, at time: Date) async throws -> BotToken {
        let made = try await rows(
            """
            INSERT INTO bot_token (user_id, name, token_hash, created_at)
            VALUES (\(bot.rawValue), \(name), \(tokenHash), \(time.storedMilliseconds)) RETURNING id
            """)
        guard let inserted = made.first else { throw ParleyError(.internalError, "a bot token insert returned no id") }
        var cells = Cells(inserted)
        let id: Int64 = try cells.next()
        guard let row = try await rows("\(unescaped: Self.botTokenSelect) WHERE t.id = \(id)").first else {
            throw ParleyError(.internalError, "a bot token just made is not there")
        }
        return try Self.botToken(row)
    }

    private static let botTokenSelect = """
        SELECT t.id, t.name, t.created_at, t.last_used_at, u.id, u.handle, u.display_name, u.is_bot
        FROM bot_token t JOIN users u ON u.id = t.user_id
        """

    private static func botToken(_ row: PostgresRow) throws -> BotToken {
        var cells = Cells(row)
        let id: Int64 = try cells.next()
        let name: String = try cells.next()
        let createdAt = try cells.date()
        let lastUsed = try cells.optionalDate()
        let bot = UserRef(
            id: UserID(try cells.next(Int64.self)), handle: try cells.next(), displayName: try cells.next(), isBot: try cells.next())
        return BotToken(id: id, bot: bot, name: name, createdAt: createdAt, lastUsedAt: lastUsed)
    }

    public func botTokens(of bot: UserID) async throws -> [BotToken] {
        try await rows("\(unescaped: Self.botTokenSelect) WHERE t.user_id = \(bot.rawValue) ORDER BY t.id").map(Self.botToken)
    }

    public func botToken(tokenHash: Data) async throws -> BotToken? {
        try await rows("\(unescaped: Self.botTokenSelect) WHERE t.token_hash = \(tokenHash)").first.map(Self.botToken)
    }

    public func deleteBotToken(_ id: Int64, of bot: UserID) async throws -> [Data]? {
        try await transaction { connection in
            let deleted = try await connection.query(
                "DELETE FROM bot_token WHERE id = \(id) AND user_id = \(bot.rawValue) RETURNING id", logger: logger
            ).collect()
            guard !deleted.isEmpty else { return nil }
            let sessions = try await connection.query(
                "DELETE FROM session WHERE bot_token_id = \(id) RETURNING token_hash", logger: logger
            ).collect()
            return try sessions.map { row in
                var cells = Cells(row)
                let hash: ByteBuffer = try cells.next()
                return Data(hash.readableBytesView)
            }
        }
    }

    public func sessionOpened(tokenHash: Data, withBotToken id: Int64, at time: Date) async throws {
        try await rows("UPDATE session SET bot_token_id = \(id) WHERE token_hash = \(tokenHash)")
        try await rows("UPDATE bot_token SET last_used_at = \(time.storedMilliseconds) WHERE id = \(id)")
    }
}
