import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Bot tokens in the engine, on both stores: only a bot's owner makes, lists and revokes
/// them; a token signs in as its bot alone, and stops when revoked.
@Suite(.timeLimit(.minutes(10))) struct BotTokenTests {
    @Test(arguments: StoreKind.all) func onlyTheOwnerManagesTokensAndARevokedOneOpensNothing(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let eve = try await world.signUp("eve")
        let dice = try await alice.createBot(NewBot(handle: "dice", displayName: "Dice", password: "dice-pass-123"))
        let made = try await alice.createBotToken(for: dice.id, name: " ci ")
        #expect(made.secret.hasPrefix("pbt_") && made.token.name == "ci" && made.token.bot.handle == "dice")
        #expect(try await alice.botTokens(for: dice.id).map(\.id) == [made.token.id])

        // Others, and the bot itself, are refused alike; nothing changes.
        await expectError(.forbidden) { _ = try await eve.createBotToken(for: dice.id, name: "mine") }
        await expectError(.forbidden) { _ = try await eve.botTokens(for: dice.id) }
        await expectError(.forbidden) { try await eve.revokeBotToken(made.token.id, of: dice.id) }
        await expectError(.forbidden) { _ = try await alice.createBotToken(for: try await eve.me().id, name: "x") }
        for bad in ["", "   ", String(repeating: "x", count: 33), "a\u{0}b"] {
            await expectError(.invalidArgument) { _ = try await alice.createBotToken(for: dice.id, name: bad) }
        }
        #expect(try await alice.botTokens(for: dice.id).count == 1)

        // It signs in as the bot: by itself, or as the password of the bot's login.
        let bot = world.engine.connect()
        #expect(try await bot.signIn(botToken: made.secret).user.handle == "dice")
        let viaPassword = world.engine.connect()
        #expect(try await viaPassword.signIn(login: "@dice", password: made.secret).user.handle == "dice")
        await expectError(.badCredentials) { _ = try await world.engine.connect().signIn(login: "@alice", password: made.secret) }
        #expect(try await world.engine.user(token: made.secret, address: "127.0.0.1").handle == "dice")
        #expect(try await alice.botTokens(for: dice.id).first?.lastUsedAt != nil)

        try await alice.revokeBotToken(made.token.id, of: dice.id)
        await expectError(.unknownBotToken) { try await alice.revokeBotToken(made.token.id, of: dice.id) }
        await expectError(.invalidToken) { _ = try await world.engine.connect().signIn(botToken: made.secret) }
        await expectError(.invalidToken) { _ = try await world.engine.user(token: made.secret, address: "127.0.0.1") }
        await expectError(.notSignedIn) { _ = try await bot.me() }
        for junk in ["pbt_", "pbt_" + String(repeating: "a", count: 500), "pbt_\u{0}"] {
            await expectError(.invalidToken) { _ = try await world.engine.connect().signIn(botToken: junk) }
        }
        // Ids are not reused: a new token never takes a revoked one's number.
        #expect(try await alice.createBotToken(for: dice.id, name: "next").token.id > made.token.id)
    }
}
