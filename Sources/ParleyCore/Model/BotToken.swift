public import Foundation

/// A long-lived token a bot account signs in with instead of its password: over the
/// WebSocket (`sign_in_bot`), over IRC (SASL PLAIN with the token as the password), and
/// on HTTP (`Authorization: Bearer`). Its owner makes, lists and revokes it; the token is
/// shown once and kept only as a hash, and revoking it ends the connections it opened.
public struct BotToken: Hashable, Codable, Sendable {
    public var id: Int64
    public var bot: UserRef
    public var name: String
    public var createdAt: Date
    public var lastUsedAt: Date?

    public init(id: Int64, bot: UserRef, name: String, createdAt: Date, lastUsedAt: Date? = nil) {
        self.id = id
        self.bot = bot
        self.name = name
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }

    /// Every bot token starts so, which tells it from a password or a session token.
    public static let prefix = "pbt_"

    public static func isToken(_ text: String) -> Bool { text.hasPrefix(prefix) }
}

/// A bot token just made, with its secret (shown this once).
public struct CreatedBotToken: Hashable, Codable, Sendable {
    public var token: BotToken
    public var secret: String

    public init(token: BotToken, secret: String) {
        self.token = token
        self.secret = secret
    }
}
