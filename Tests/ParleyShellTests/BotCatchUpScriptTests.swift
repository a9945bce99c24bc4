import Foundation
import ParleyTesting
import Testing

/// A helper-based bot (plugins/parley_bot.py) restarted against a server: the commands
/// sent while it was down reach it marked as caught up, and it doesn't run them unless
/// a handler asked for them.
@Suite(.timeLimit(.minutes(10))) struct BotCatchUpScriptTests {
    /// Kept outside plugins/, as a bot author's own file is: it finds the helper through
    /// PYTHONPATH, as docs/plugins.md says.
    static let plugin = #"""
        #!/usr/bin/env python3
        from parley_bot import Bot
        bot = Bot("later")

        @bot.chat_command("ping", help="answers pong")
        def ping(event, args):
            bot.reply(event, "pong " + args)

        @bot.chat_command("tally", help="counts, even what came while away", catch_up=True)
        def tally(event, args):
            bot.reply(event, "tally " + args + (" (caught up)" if event.get("catch_up") else ""))

        bot.run()
        """#

    @Test func aRestartedBotDoesNotRunTheCommandsItMissedUnlessAHandlerAsks() async throws {
        let world = try await ServedShells(["alice"])
        defer { world.remove() }
        let alice = world["alice"]
        let made = try await alice.run(
            """
            /register alice@example.com --handle alice --password wonderland-1
            /create #team
            /bots new @later
            /invite @later #team
            /bots token @later --name host
            """)
        try #require(made.status == 0, "\(made.stderr)")
        let token = try #require(made.stdout.firstMatch(of: /pbt_[A-Za-z0-9_-]+/).map { String($0.0) })
        let script = world.folder.appendingPathComponent("later.py")
        try Self.plugin.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)

        func startBot() throws -> ChildProcess {
            var environment = ProcessInfo.processInfo.environment
            environment["LATER_TOKEN"] = token
            environment["PYTHONPATH"] = ParleyBinary.repository.appendingPathComponent("plugins").path
            return try ChildProcess(
                ParleyBinary.executable.path,
                [
                    "bot", script.path, "--as", "@later", "--token-env", "LATER_TOKEN", "--data",
                    world.folder.appendingPathComponent("bot").path, "--server", world.server.url,
                ],
                environment: environment, stderr: .null)
        }
        func history() async throws -> String { try await alice.run("/history #team 50").stdout }
        func waitFor(_ text: String) async throws -> String {
            try await OutgoingHookScriptTests.poll({ try await history() }) { $0.contains(text) }
        }

        let first = try startBot()
        #expect(try await alice.run("/send #team !ping one").status == 0)
        #expect(try await waitFor("pong one").contains("pong one"))
        first.terminate(SIGKILL)
        first.waitUntilExit()

        // Sent while the bot is down.
        #expect(try await alice.run("/send #team !ping while away\n/send #team !tally while away").status == 0)
        let second = try startBot()
        defer {
            second.terminate(SIGKILL)
            second.waitUntilExit()
        }
        // The opted-in handler answers the later of the two missed commands: the one
        // before it has been handed over and passed by then.
        #expect(try await waitFor("tally while away (caught up)").contains("tally while away (caught up)"))
        #expect(try await alice.run("/send #team !ping two").status == 0)
        let after = try await waitFor("pong two")
        #expect(after.contains("pong two"))
        #expect(!after.contains("pong while away"), "\(after)")
    }
}
