public import Foundation
public import ParleyCore

/// Bot tokens: what a bot signs in with, made and revoked by its owner.
public protocol BotTokensStore: Sendable {
    func createBotToken(bot: UserID, name: String, tokenHash: Data, at time: Date) async throws -> BotToken

    /// A bot's tokens, oldest first.
    func botTokens(of bot: UserID) async throws -> [BotToken]
    func botToken(tokenHash: Data) async throws -> BotToken?

    /// Deletes a token of `bot` and the sessions it opened; returns their token hashes,
    /// or nil when the bot has no such token.
    func deleteBotToken(_ id: Int64, of bot: UserID) async throws -> [Data]?

    /// Marks a session as opened with a token, and the token as used at `time`.
    func sessionOpened(tokenHash: Data, withBotToken id: Int64, at time: Date) async throws
}
