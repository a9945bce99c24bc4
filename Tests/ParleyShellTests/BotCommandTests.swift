import Foundation
import ParleyTesting
import Testing

/// A headless bot's commands (`parley bot` beside a server): who may run them is
/// checked before the plugin sees the line, and `/help` in a chat it is in, or an IRC
/// client's `/msg BOT help`, lists them.
@Suite struct BotCommandTests {
    @Test func aHeadlessBotsCommandsAreCheckedAndListed() async throws {
        let world = try await ServedShells(["alice", "bob", "dave"])
        defer { world.remove() }
        let (server, alice, bob, dave) = (world.server, world["alice"], world["bob"], world["dave"])
        #expect(try await alice.run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        #expect(try await bob.run("/register bob@example.com --handle bob --password builder-123\n/join #team").status == 0)
        #expect(try await dave.run("/register dave@example.com --handle dave --password diver-12345\n/join #team").status == 0)

        var environment = ProcessInfo.processInfo.environment
        environment["PARLEY_BCRYPT_COST"] = "4"
        let plugin = ParleyBinary.repository.appendingPathComponent("Tests/ParleyShellTests/Plugins/moderator.sh").path
        let bot = try ChildProcess(
            ParleyBinary.executable.path, ["bot", plugin, "--as", "@mod", "--data", alice.data.path, "--server", server.url],
            environment: environment, directory: ParleyBinary.repository.path, stderr: .pipe)
        defer {
            bot.terminate()
            bot.waitUntilExit()
        }
        let log = ParleyBinary.Conversation(process: bot, input: FileHandle.nullDevice, output: try #require(bot.errors))
        #expect(try await log.waitForLine(containing: "loaded moderator") != nil)
        #expect(try await alice.run("/invite @mod #team\n/op @bob #team").status == 0)

        // A member's !kick is refused, privately; an admin's runs.
        let refused = try await dave.run("/send #team !kick @bob\n/wait --timeout 600 @mod is for the admins of #team only")
        #expect(refused.status == 0, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.lines.contains { $0.contains("!kick is for the admins of #team only") }, "\(refused.lines)")
        let allowed = try await bob.run("/send #team !kick @dave\n/wait --timeout 600 #team kicking @dave")
        #expect(allowed.status == 0, "\(allowed.stdout) \(allowed.stderr)")
        // The plugin answers in order: had it seen dave's line, its answer would be there first.
        let history = try await alice.run("/history #team 20")
        #expect(!history.stdout.contains("kicking @bob"), "\(history.lines)")
        #expect(history.stdout.contains("kicking @dave"))

        // /help in the group lists the bot's commands, and who may run the restricted ones.
        let help = try await dave.run("/switch #team\n/help")
        #expect(help.status == 0, "\(help.stderr)")
        #expect(help.lines.contains("Commands of the bots in #team (type them as messages there):"), "\(help.lines)")
        #expect(help.lines.contains("  !kick @USER  remove someone from the group [@mod; the admins of #team only]"), "\(help.lines)")
        #expect(help.lines.contains("  !ping  say whether the bot is there [@mod]"), "\(help.lines)")
        #expect(help.lines.contains("  !stats  how busy the bot is [@mod; the bot's owner or @carol only]"), "\(help.lines)")

        // An IRC client asks the bot itself.
        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await irc.signIn("dave", password: "diver-12345"))
        try irc.send("PRIVMSG mod :help")
        #expect(await irc.wait(containing: ":mod!mod@parley NOTICE dave :Commands of mod, typed in a channel it is in:") != nil)
        #expect(
            await irc.wait(
                containing: ":mod!mod@parley NOTICE dave :  !kick @USER  remove someone from the group (the admins of the channel only)")
                != nil)
        #expect(
            await irc.wait(containing: ":mod!mod@parley NOTICE dave :  !stats  how busy the bot is (the bot's owner or @carol only)") != nil
        )
    }
}
