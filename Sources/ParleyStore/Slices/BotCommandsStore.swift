public import ParleyCore

/// The chat commands bots declare.
public protocol BotCommandsStore: Sendable {
    /// Replaces what a bot declared.
    func setBotCommands(_ commands: [ChatCommand], of bot: UserID) async throws

    /// What a bot declared (empty when nothing).
    func botCommands(of bot: UserID) async throws -> [ChatCommand]

    /// The bots in a chat that declared commands, by handle.
    func botCommands(in chat: ChatID) async throws -> [BotCommands]
}
