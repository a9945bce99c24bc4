/// Bot tokens: made and revoked by a bot's owner, signed in with by the bot.
public protocol BotTokensService: AnyObject, Sendable {
    /// Makes a token for a bot the user owns, named (1–32 characters) to tell it apart.
    func createBotToken(for bot: UserID, name: String) async throws -> CreatedBotToken
    func botTokens(for bot: UserID) async throws -> [BotToken]

    /// Revokes a token: the connections it opened end at once, on every node.
    func revokeBotToken(_ id: Int64, of bot: UserID) async throws

    /// Signs in as the bot a token belongs to.
    func signIn(botToken: String) async throws -> SignedIn
}
