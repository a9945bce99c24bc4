public import ParleyCore
import ParleyStore

/// The commands bots answer in chats: a bot declares them, members list them.
extension EngineSession {
    public func setBotCommands(_ commands: [ChatCommand]) async throws {
        let user = try requireUser()
        guard user.isBot else { throw ParleyError(.forbidden, "only a bot account declares chat commands") }
        guard commands.count <= ChatCommand.maxPerBot else {
            throw ParleyError(.invalidArgument, "a bot declares at most \(ChatCommand.maxPerBot) commands")
        }
        var checked: [ChatCommand] = []
        for command in commands {
            let command = try ChatCommand.checked(command)
            guard !checked.contains(where: { $0.name == command.name }) else {
                throw ParleyError(.invalidArgument, "command \(command.name) is declared twice")
            }
            checked.append(command)
        }
        try await store.setBotCommands(checked, of: user.id)
    }

    /// What a bot declared, for anyone signed in (IRC's `/msg BOT help`).
    public func botCommands(of bot: UserID) async throws -> [ChatCommand] {
        _ = try requireUser()
        return try await store.botCommands(of: bot)
    }

    public func chatCommands(in chat: ChatID) async throws -> [BotCommands] {
        _ = try await requireMember(chat)
        return try await store.botCommands(in: chat)
    }
}
