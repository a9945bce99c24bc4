import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `BotCommandsStore`: the chat commands bots declare.
extension SQLiteChatStore {
    public func setBotCommands(_ commands: [ChatCommand], of bot: UserID) async throws {
        let json = String(decoding: try ChatCommandCoding.encoder.encode(commands), as: UTF8.self)
        try await pool.write { db in
            if commands.isEmpty {
                try db.execute(sql: "DELETE FROM bot_command_set WHERE user_id = ?", arguments: [bot.rawValue])
            } else {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO bot_command_set (user_id, commands) VALUES (?, ?)", arguments: [bot.rawValue, json])
            }
        }
    }

    public func botCommands(of bot: UserID) async throws -> [ChatCommand] {
        let json = try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT commands FROM bot_command_set WHERE user_id = ?", arguments: [bot.rawValue])
        }
        return ChatCommandCoding.decode(json)
    }

    public func botCommands(in chat: ChatID) async throws -> [BotCommands] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.id, u.handle, u.display_name, u.is_bot, c.commands
                    FROM member m JOIN user u ON u.id = m.user_id JOIN bot_command_set c ON c.user_id = m.user_id
                    WHERE m.chat_id = ? ORDER BY u.handle COLLATE NOCASE
                    """, arguments: [chat.rawValue]
            ).map { row in
                BotCommands(
                    bot: UserRef(id: UserID(row[0] as Int64), handle: row[1], displayName: row[2], isBot: row[3]),
                    commands: ChatCommandCoding.decode(row[4]))
            }
        }
    }
}
