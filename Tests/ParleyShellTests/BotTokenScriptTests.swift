import Foundation
import ParleyTesting
import Testing

/// A bot signs in with a token on the WebSocket (`parley bot --token-env`), IRC (SASL
/// PLAIN) and HTTP (Bearer); revoking the token ends each of those connections. On both
/// stores, through the binary.
@Suite(.timeLimit(.minutes(10))) struct BotTokenScriptTests {
    @Test(arguments: StoreKind.all) func aTokenSignsABotInEverywhereUntilRevoked(_ store: StoreKind) async throws {
        let world = try await IRCGatewayTests.world(arguments: try store.serveArguments())
        defer { world.remove() }
        let (alice, server) = (world.alice, world.server)
        let made = try await alice.run("/bots new @dice --password dice-pass-123\n/invite @dice #swift\n/bots token @dice --name ci")
        #expect(made.status == 0, "\(made.stderr)")
        let secret = try #require(made.stdout.firstMatch(of: /pbt_[A-Za-z0-9_-]+/).map { String($0.0) }, "\(made.stdout)")
        #expect(made.stdout.contains("Made token ") && made.stdout.contains(" \"ci\" for @dice; shown this once"))

        // HTTP: an upload with the token as the bearer; a wrong one is refused.
        let upload = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media?kind=file", headers: ["Authorization": "Bearer \(secret)"],
            body: Array("dice notes".utf8))
        #expect(upload.status == 201, "\(upload.text)")
        let wrong = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media?kind=file", headers: ["Authorization": "Bearer pbt_not-it"],
            body: Array("x".utf8))
        #expect(wrong.status == 401 && wrong.text.contains("invalid_token"))

        // IRC: SASL PLAIN with the token as the password.
        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await irc.signIn("dice", password: secret))
        try irc.send("JOIN #swift")
        #expect(await irc.wait(containing: " 366 dice #swift ") != nil)
        // Not as another account: a token is its bot's only.
        let other = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await !other.signIn("alice", password: secret))

        // WebSocket: `parley bot` signs in with `sign_in_bot`, and answers in the group.
        var environment = ProcessInfo.processInfo.environment
        environment["DICE_TOKEN"] = secret
        let folder = world.folder.appendingPathComponent("bot-data")
        let bot = try ChildProcess(
            ParleyBinary.executable.path,
            ["bot", "plugins/dice.py", "--as", "@dice", "--token-env", "DICE_TOKEN", "--data", folder.path, "--server", server.url],
            environment: environment, directory: ParleyBinary.repository.path, stderr: .pipe)
        defer {
            bot.terminate()
            bot.waitUntilExit()
        }
        let log = ParleyBinary.Conversation(process: bot, input: FileHandle.nullDevice, output: try #require(bot.errors))
        #expect(try await log.waitForLine(containing: "loaded dice") != nil)
        let rolled = try await alice.run("/send #swift !roll 1d6\n/wait --timeout 600 #swift rolled 1d6\n/bots tokens @dice")
        #expect(rolled.status == 0, "\(rolled.stderr)")
        #expect(rolled.stdout.contains("ci  made ") && rolled.stdout.contains("last used "), "\(rolled.stdout)")

        // Revoked: the IRC connection and the bot's socket end at once, and the token
        // opens nothing any more.
        let id = try #require(rolled.lines.last?.split(separator: " ").first.map(String.init))
        #expect(try await alice.run("/bots revoke @dice \(id)").status == 0)
        #expect(await irc.wait(containing: "ERROR :Closing link") != nil)
        #expect(try await log.waitForLine(containing: "[dice] [signed out]") != nil)
        let after = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await !after.signIn("dice", password: secret))
        let refused = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media?kind=file", headers: ["Authorization": "Bearer \(secret)"],
            body: Array("x".utf8))
        #expect(refused.status == 401)
        // Only the bot's owner manages its tokens.
        let bob = try await world.bob.run("/bots tokens @dice")
        #expect(bob.status != 0 && bob.stderr.contains("forbidden"), "\(bob.stderr)")
    }
}
