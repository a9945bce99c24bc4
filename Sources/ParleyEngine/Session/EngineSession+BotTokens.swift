import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// Bot tokens: their owner makes, lists and revokes them; a bot signs in with one.
extension EngineSession {
    static let maxTokensPerBot = 20

    public func createBotToken(for bot: UserID, name: String) async throws -> CreatedBotToken {
        let found = try await requireOwnedBot(bot)
        let trimmed = name.trimmingSpaces()
        guard !trimmed.isEmpty, trimmed.count <= 32, !trimmed.unicodeScalars.contains(where: Limits.isControl) else {
            throw ParleyError(.invalidArgument, "a token's name is 1–32 characters without control characters")
        }
        guard try await store.botTokens(of: found.id).count < Self.maxTokensPerBot else {
            throw ParleyError(.forbidden, "a bot has at most \(Self.maxTokensPerBot) tokens; revoke one first")
        }
        let secret = BotToken.prefix + SecretToken.session()
        let token = try await store.createBotToken(bot: found.id, name: trimmed, tokenHash: SecretToken.hash(secret), at: engine.now)
        return CreatedBotToken(token: token, secret: secret)
    }

    public func botTokens(for bot: UserID) async throws -> [BotToken] {
        try await store.botTokens(of: try await requireOwnedBot(bot).id)
    }

    public func revokeBotToken(_ id: Int64, of bot: UserID) async throws {
        let found = try await requireOwnedBot(bot)
        guard let sessions = try await store.deleteBotToken(id, of: found.id) else {
            throw ParleyError(.unknownBotToken, "@\(found.handle) has no token \(id)")
        }
        for hash in sessions { await engine.endSessions(of: found.id, .signedOut(token: hash), except: -1) }
    }

    public func signIn(botToken: String) async throws -> SignedIn {
        try requireSignedOut()
        guard let token = try await engine.botToken(botToken), let user = try await store.user(id: token.bot.id) else {
            throw ParleyError(.invalidToken, "this bot token is not valid: revoked, or mistyped")
        }
        let signed = try await signedIn(as: user)
        let hash = SecretToken.hash(signed.token)
        try await store.sessionOpened(tokenHash: hash, withBotToken: token.id, at: engine.now)
        // Revoked while this sign-in was under way: its sessions were ended before this
        // one was marked, so this one ends here.
        guard try await store.botToken(tokenHash: SecretToken.hash(botToken)) != nil else {
            try await signOut()
            throw ParleyError(.invalidToken, "this bot token was revoked")
        }
        return signed
    }

    /// A bot account the signed-in user owns, or `forbidden` (for one that is not
    /// theirs and one that does not exist alike).
    private func requireOwnedBot(_ bot: UserID) async throws -> User {
        let owner = try requireUser()
        guard let found = try await store.bots(ownedBy: owner.id).first(where: { $0.id == bot }) else {
            throw ParleyError(.forbidden, "that is not a bot account of yours")
        }
        return found
    }
}

extension ChatEngine {
    /// The live bot token a text is, or nil.
    func botToken(_ text: String) async throws -> BotToken? {
        guard BotToken.isToken(text), text.utf8.count <= 128 else { return nil }
        return try await store.botToken(tokenHash: SecretToken.hash(text))
    }
}
