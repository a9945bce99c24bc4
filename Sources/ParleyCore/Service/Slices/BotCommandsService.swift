/// The chat commands bots declare, and those a chat's bots offer.
public protocol BotCommandsService: AnyObject, Sendable {
    /// A bot declares the commands it answers in chats (`!NAME`), replacing what it
    /// declared before; only a bot account may.
    func setBotCommands(_ commands: [ChatCommand]) async throws

    /// The commands of the bots in a chat the user is in.
    func chatCommands(in chat: ChatID) async throws -> [BotCommands]
}
