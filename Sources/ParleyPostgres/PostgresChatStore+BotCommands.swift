import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// `BotCommandsStore`: the chat commands bots declare.
extension PostgresChatStore {
    public func setBotCommands(_ commands: [ChatCommand], of bot: UserID) async throws {
        let json = String(decoding: try ChatCommandCoding.encoder.encode(commands), as: UTF8.self)
        if commands.isEmpty {
            _ = try await rows("DELETE FROM bot_command_set WHERE user_id = \(bot.rawValue)")
        } else {
            _ = try await rows(
                """
                INSERT INTO bot_command_set (user_id, commands) VALUES (\(bot.rawValue), \(json))
                ON CONFLICT (user_id) DO UPDATE SET commands = excluded.commands
                """)
        }
    }

    public func botCommands(of bot: UserID) async throws -> [ChatCommand] {
        guard let row = try await rows("SELECT commands FROM bot_command_set WHERE user_id = \(bot.rawValue)").first else { return [] }
        var cells = Cells(row)
        return ChatCommandCoding.decode(try cells.next(String.self))
    }

    public func botCommands(in chat: ChatID) async throws -> [BotCommands] {
        try await rows(
            """
            SELECT u.id, u.handle, u.display_name, u.is_bot, c.commands
            FROM member m JOIN users u ON u.id = m.user_id JOIN bot_command_set c ON c.user_id = m.user_id
            WHERE m.chat_id = \(chat.rawValue) ORDER BY lower(u.handle)
            """
        ).map { row in
            var cells = Cells(row)
            let bot = UserRef(
                id: UserID(try cells.next(Int64.self)), handle: try cells.next(), displayName: try cells.next(), isBot: try cells.next())
            return BotCommands(bot: bot, commands: ChatCommandCoding.decode(try cells.next(String.self)))
        }
    }
}
