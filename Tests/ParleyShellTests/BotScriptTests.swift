import Foundation
import ParleyTesting
import Testing

/// Bot plugins driven through the real binary: the demo script, declared commands, a
/// plugin that never reads, and `parley bot` beside a server.
@Suite(.timeLimit(.minutes(10)))
struct BotScriptTests {
    static let testBot = "Tests/ParleyBotsTests/Plugins/testbot.py"

    /// `parley --data DIR run examples/bot-demo.parley`: loads the dice bot, asks it to
    /// roll, waits for its answer, runs a poll.
    @Test(arguments: ParleyBinary.Mode.allCases) func theBotDemoRuns(mode: ParleyBinary.Mode) async throws {
        let result = try await Self.runExample("bot-demo.parley", mode: mode)
        #expect(result.lines.contains { $0.contains("<dicebot*> @demo rolled 2d6: ") })
        #expect(result.lines.contains { $0.contains("<dicebot*> @demo votes sushi.") })
        #expect(result.lines.contains { $0.hasPrefix("dice  pid ") && $0.contains("running") })
        #expect(result.lines.last == "Unloaded plugin dice")
    }

    /// The README's examples run clean, embedded and against a server.
    @Test(arguments: ParleyBinary.Mode.allCases) func theQuickstartAndDirectExamplesRun(mode: ParleyBinary.Mode) async throws {
        let quickstart = try await Self.runExample("quickstart.parley", mode: mode)
        #expect(quickstart.lines.contains { $0.hasPrefix("Invite to #tea: parley://join/") })
        #expect(quickstart.lines.contains("Joined #tea"))
        #expect(quickstart.lines.contains { $0.hasPrefix("#tea (1 unread)") && $0.hasSuffix("<bob> Lemon, please.") })
        #expect(quickstart.lines.contains("Message 2 seen by @bob"))
        let direct = try await Self.runExample("direct.parley", mode: mode)
        #expect(direct.lines.contains { $0.hasPrefix("@dave (1 unread)") && $0.hasSuffix("<dave> Hi Carol, lunch today?") })
        #expect(direct.lines.contains { $0.hasPrefix("2. ") && $0.hasSuffix("<carol> Sure, 12:30 at the usual place?") })
    }

    /// `parley --data FRESH run examples/NAME`, as the README runs it (a fresh data
    /// folder, and a fresh server in server mode); expects a clean exit.
    static func runExample(
        _ name: String, mode: ParleyBinary.Mode, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> ParleyBinary.Result {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let result = try await parley.run(arguments: ["run", "examples/\(name)"])
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        return result
    }

    @Test func declaredCommandsJoinHelpAndRunInTheCurrentChat() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let result = try await parley.run(
            """
            /register alice@example.com --handle alice --password secret-alice
            /create #room
            /plugin load \(Self.testBot) --as @shouter --name shouter commands /dev/null
            /wait --timeout 600 shouter is ready
            /invite @shouter #room
            /help
            /help shout
            /shout good morning
            /wait --timeout 600 #room GOOD MORNING!
            /plugin unload shouter
            /shout again
            """, arguments: ["--keep-going"])
        // (The load line names the commands when the hello came within its second; on a
        // loaded machine it may come after, which the bot's "ready" line waits for.)
        #expect(result.lines.contains { $0.contains("Loaded plugin shouter") })
        #expect(result.lines.contains { $0.contains("/shout") && $0.contains("shout in the current chat") }, "/help lists it")
        #expect(result.lines.contains("usage: /shout TEXT"))
        #expect(result.lines.contains { $0.contains("<shouter*> GOOD MORNING!") })
        #expect(result.stderr.contains("unknown_command: unknown command /shout"), "gone with its plugin")
    }

    /// Two plugins acting as their users (bob's and carol's, loaded in their own shells
    /// without --as) in one group, each answering every message it hears. By default
    /// neither hears the other: alice's ping gets two answers. When both ask for
    /// plugins' messages, the loop guard stops them: each hears five of the other's
    /// answers, then no more, so the group holds exactly 12 answers. The same when they
    /// answer with a slash-command line (`/send #loop …`) instead of a JSON action: the
    /// message carries the plugin's `via` either way.
    @Test(arguments: [("answer", false), ("answer", true), ("answer-slash", true)])
    func twoPluginsActingAsTheirUsersDoNotLoop(mode: String, askForPluginMessages: Bool) async throws {
        let server = try await ParleyBinary(mode: .server)
        defer { server.remove() }
        let setup = try await server.run(
            """
            /register alice@example.com --handle alice --password secret-alice
            /create #loop
            /logout
            """)
        #expect(setup.status == 0, "\(setup.stderr)")
        var shells: [(ParleyBinary, ParleyBinary.Conversation)] = []
        defer {
            for (binary, shell) in shells {
                shell.finish()
                binary.remove()
            }
        }
        for name in ["bob", "carol"] {
            let binary = ParleyBinary(clientOf: server)
            let shell = try binary.converse()
            shells.append((binary, shell))
            try await shell.send("/register \(name)@example.com --handle \(name) --password secret-\(name)")
            try await shell.send("/join #loop")
            try await shell.send(
                "/plugin load \(Self.testBot) --name pong-\(name) \(mode) /dev/null \(askForPluginMessages ? "bots" : "people")")
            #expect(try await shell.waitForLine(containing: "Loaded plugin pong-\(name)") != nil)
        }
        // Each plugin takes its events in order and its lines run in order, so once
        // both have answered something later, everything they were going to say to
        // the group has been said.
        let later =
            askForPluginMessages
            ? "/wait --timeout 600 ^tripped\n/wait --timeout 600 ^tripped"
            : "/send @bob sync\n/send @carol sync\n/wait --timeout 600 ^pong.*: sync\n/wait --timeout 600 ^pong.*: sync"
        let alice = try await server.run(
            """
            /login alice@example.com --password secret-alice
            /send #loop ping
            \(later)
            /history #loop 100
            """)
        #expect(alice.status == 0, "\(alice.stderr)")
        let answers = alice.lines.filter { $0.contains(" via pong-") && $0.contains("#loop") }
        if askForPluginMessages {
            #expect(alice.lines.contains { $0.contains("<bob via pong-bob> tripped pong-bob") })
            #expect(alice.lines.contains { $0.contains("<carol via pong-carol> tripped pong-carol") })
            #expect(answers.count == 12, "\(answers.joined(separator: "\n"))")
        } else {
            #expect(answers.count == 2, "\(answers.joined(separator: "\n"))")
            #expect(answers.contains { $0.contains("<bob via pong-bob> pong from pong-bob: ping") })
            #expect(answers.contains { $0.contains("<carol via pong-carol> pong from pong-carol: ping") })
        }
    }

    /// A plugin that never reads its events costs the shell nothing: 600 sends go
    /// through and the plugin's oldest events are dropped, with a count.
    @Test func aPluginThatNeverReadsDoesNotDelayTheShell() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        var script = """
            /register alice@example.com --handle alice --password secret-alice
            /create #room
            /plugin load \(Self.testBot) --as @sleepy --name sleepy sleeper /dev/null
            /invite @sleepy #room

            """
        for index in 1...600 { script += "/send #room message \(index) " + String(repeating: "x", count: 300) + "\n" }
        script += "/history #room 1\n/plugin list\n"
        // From a file: fed on stdin, 200 KB of script against 200 KB of output would fill both pipes.
        try FileManager.default.createDirectory(at: parley.data, withIntermediateDirectories: true)
        let file = parley.data.appendingPathComponent("many.parley")
        try script.write(to: file, atomically: true, encoding: .utf8)
        let result = try await parley.run(arguments: ["run", file.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains { $0.contains("<alice> message 600 ") })
        let list = try #require(result.lines.first { $0.hasPrefix("sleepy  pid ") })
        let dropped = list.firstMatch(of: /dropped (\d+)/).flatMap { Int($0.1) } ?? 0
        #expect(dropped > 0, "\(list)")
    }

    /// `parley bot` beside a server: answers in a group, then stops on SIGTERM with its
    /// plugin, exit status 0.
    /// `parley bot` started before its server waits for it, saying so; it logs when
    /// the server goes away and when it is back; SIGTERM still ends it cleanly.
    @Test func parleyBotWaitsForItsServerAndLogsItComingAndGoing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bot-wait-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A port below the kernel's ephemeral range, free now, for a server started later.
        var port = 0
        for _ in 0..<50 where port == 0 {
            let candidate = Int.random(in: 20_000..<32_000)
            if let probe = try? await ServeProcess.start(data: folder.appendingPathComponent("probe"), port: candidate) {
                probe.stop()
                port = candidate
            }
        }
        #expect(port != 0)
        // The bot account is made on first use by the user signed in in the bot's folder.
        let url = "ws://127.0.0.1:\(port)/v1/ws"
        var server = try await ServeProcess.start(data: folder.appendingPathComponent("server"), port: port)
        let owner = ParleyBinary(serverURL: url)
        defer { owner.remove() }
        let signUp = try await owner.run("/register alice@example.com --handle alice --password secret-alice")
        #expect(signUp.status == 0, "\(signUp.stderr)")
        server.stop()
        let (bot, errors) = try Self.echoBot(server: url, data: owner.data)
        let log = ParleyBinary.Conversation(process: bot, input: FileHandle.nullDevice, output: errors)
        #expect(try await log.waitForLine(containing: "retrying in") != nil, "no server yet")
        server = try await ServeProcess.start(data: folder.appendingPathComponent("server"), port: port)
        #expect(try await log.waitForLine(containing: "loaded echo") != nil)
        server.stop()
        #expect(try await log.waitForLine(containing: "[echo] [connection lost]") != nil)
        server = try await ServeProcess.start(data: folder.appendingPathComponent("server"), port: port)
        defer { server.stop() }
        #expect(try await log.waitForLine(containing: "[echo] [connection back]") != nil)
        bot.terminate()
        bot.waitUntilExit()
        #expect(bot.terminationStatus == 0)
    }

    /// `parley bot plugins/echo.py --as @echo` against `server` (nil: the embedded
    /// database in `data`), its log on a pipe.
    static func echoBot(server: String?, data: URL) throws -> (ChildProcess, FileHandle) {
        var environment = ProcessInfo.processInfo.environment
        environment["PARLEY_BCRYPT_COST"] = "4"
        let bot = try ChildProcess(
            ParleyBinary.executable.path,
            ["bot", "plugins/echo.py", "--as", "@echo", "--data", data.path] + (server.map { ["--server", $0] } ?? []),
            environment: environment, directory: ParleyBinary.repository.path, stderr: .pipe)
        guard let errors = bot.errors else { fatalError("a pipe asked for") }
        return (bot, errors)
    }

    @Test func parleyBotServesAGroupAndStopsOnSigterm() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let signUp = try await parley.run("/register alice@example.com --handle alice --password secret-alice")
        #expect(signUp.status == 0, "\(signUp.stderr)")
        let (bot, errors) = try Self.echoBot(server: parley.serverURL!, data: parley.data)
        var log = ""
        while !log.contains("loaded echo") {
            let chunk = errors.availableData
            if chunk.isEmpty { break }
            log += String(decoding: chunk, as: UTF8.self)
        }
        let pid = try #require(log.firstMatch(of: /loaded echo \(pid (\d+)\)/).flatMap { Int32($0.1) }, "\(log)")
        let result = try await parley.run(
            """
            /whois @echo
            /create #room
            /invite @echo #room
            /send #room anyone there?
            /wait --timeout 600 #room echo: anyone there\\?
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.lines.first?.hasPrefix("@echo echo [bot of @alice] — joined ") == true, "alice owns the bot she made: \(result.lines)")
        bot.terminate()
        bot.waitUntilExit()
        #expect(bot.terminationStatus == 0)
        #expect(kill(pid, 0) != 0, "the plugin stopped with the bot")
    }

    /// `parley bot` on the embedded database is one group of services: SIGTERM stops
    /// the plugin first and closes the database last, exits 0, and leaves the folder
    /// free for a server.
    @Test func parleyBotOnTheEmbeddedDatabaseStopsInOrder() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let signUp = try await parley.run("/register alice@example.com --handle alice --password secret-alice")
        #expect(signUp.status == 0, "\(signUp.stderr)")
        let (bot, errors) = try Self.echoBot(server: nil, data: parley.data)
        let log = ParleyBinary.Conversation(process: bot, input: FileHandle.nullDevice, output: errors)
        let loaded = try await #require(try log.waitForLine(containing: "loaded echo"))
        let pid = try #require(loaded.firstMatch(of: /pid (\d+)/).flatMap { Int32($0.1) })
        bot.terminate()
        let stopped = try await log.waitForLine(containing: "stopped:")
        #expect(stopped?.hasSuffix("stopped: plugins, then the connection, the bot state and the database") == true, "\(stopped ?? "")")
        bot.waitUntilExit()
        #expect(bot.terminationStatus == 0)
        #expect(kill(pid, 0) != 0, "the plugin stopped with the bot")
        let server = try await ServeProcess.start(data: parley.data)
        server.stop()
    }
}
