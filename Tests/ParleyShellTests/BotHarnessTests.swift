import Foundation
import ParleyTesting
import Testing

/// `parley bot test`: every bundled plugin passes its transcript; a wrong expectation
/// fails with a diff (and in JSON); the controlled clock takes a cron schedule across
/// midnight at once.
@Suite struct BotHarnessTests {
    static let plugins = ParleyBinary.repository.appendingPathComponent("plugins")

    /// The bundled plugin a transcript `plugins/tests/NAME.transcript` is for.
    static func plugin(for transcript: URL) throws -> URL {
        let name = transcript.deletingPathExtension().lastPathComponent
        let files = try FileManager.default.contentsOfDirectory(atPath: plugins.path)
        let file = try #require(files.first { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent == name }, "\(name)")
        return plugins.appendingPathComponent(file)
    }

    @Test func everyBundledPluginPassesItsTranscript() async throws {
        let transcripts = try FileManager.default.contentsOfDirectory(atPath: Self.plugins.appendingPathComponent("tests").path)
            .filter { $0.hasSuffix(".transcript") }.sorted()
        // Every bot in plugins/ has one (the helper module is not a bot).
        let bots = try FileManager.default.contentsOfDirectory(atPath: Self.plugins.path)
            .filter { !$0.hasPrefix("parley_bot") && ($0.hasSuffix(".py") || $0.hasSuffix(".sh") || $0.hasSuffix(".pl")) }
        #expect(
            Set(bots.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent })
                == Set(transcripts.map { URL(fileURLWithPath: $0).deletingPathExtension().lastPathComponent }))
        let parley = ParleyBinary(serverURL: nil)
        for name in transcripts {
            let transcript = Self.plugins.appendingPathComponent("tests").appendingPathComponent(name)
            let result = try await parley.run(
                arguments: ["--json", "bot", "test", try Self.plugin(for: transcript).path, transcript.path], useData: false)
            #expect(result.status == 0, "\(name): \(result.stdout) \(result.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            #expect(report?["ok"] as? Bool == true, "\(name): \(result.stdout)")
            #expect((report?["answers"] as? Int ?? 0) > 0, "\(name) expects answers")
        }
    }

    /// The complete examples of docs/plugins.md are the shipped bots, whose transcripts pass above.
    @Test func theDocumentedCompleteExamplesAreTheShippedBots() throws {
        let page = try String(contentsOf: ParleyBinary.repository.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
        for (language, file) in [("sh", "standup.sh"), ("python", "announce.py")] {
            let shipped = try String(contentsOf: Self.plugins.appendingPathComponent(file), encoding: .utf8)
            let firstLines = shipped.split(separator: "\n").prefix(2).joined(separator: "\n")
            let start = try #require(page.range(of: "```\(language)\n" + firstLines), "docs/plugins.md shows \(file)")
            let body = start.lowerBound..<page.endIndex
            let open = try #require(page.range(of: "\n", range: body)).upperBound
            let end = try #require(page.range(of: "```", range: open..<page.endIndex))
            #expect(String(page[open..<end.lowerBound]) == shipped, "docs/plugins.md shows plugins/\(file) as it is")
        }
    }

    @Test func aWrongExpectationFailsWithADiff() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-harness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let transcript = folder.appendingPathComponent("echo.transcript")
        try """
        people alice bob
        group #room alice bob
        alice> hello
        < echo: goodbye
        bob> second
        < echo: second
        """.write(to: transcript, atomically: true, encoding: .utf8)
        let echo = Self.plugins.appendingPathComponent("echo.py").path
        let parley = ParleyBinary(serverURL: nil)
        let text = try await parley.run(arguments: ["bot", "test", echo, transcript.path], useData: false)
        #expect(text.status == 1, "\(text.stdout) \(text.stderr)")
        #expect(text.lines.first?.hasPrefix("FAIL \(transcript.path): 1 of 2 answers differ") == true, "\(text.lines)")
        let hunk = try #require(text.lines.firstIndex(of: "@@ line 4 @@"), "\(text.lines)")
        #expect(Array(text.lines[hunk...].prefix(4)) == ["@@ line 4 @@", "  alice> hello", "- echo: goodbye", "+ echo: hello    [#room]"])
        let json = try await parley.run(arguments: ["bot", "test", "--json", echo, transcript.path], useData: false)
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["ok"] as? Bool == false)
        let failures = try #require(report["failures"] as? [[String: Any]])
        #expect(failures.count == 1)
        #expect(failures.first?["line"] as? Int == 4)
        #expect(failures.first?["expected"] as? String == "echo: goodbye")
        #expect(failures.first?["got"] as? String == "echo: hello")
        // A transcript that cannot be read is told by its line, with status 2.
        try "people alice\nalice says hi\n".write(to: transcript, atomically: true, encoding: .utf8)
        let broken = try await parley.run(arguments: ["bot", "test", echo, transcript.path], useData: false)
        #expect(broken.status == 2)
        #expect(broken.stdout.contains("line 2: not a step: alice says hi"), "\(broken.stdout)")
    }

    /// ticker.sh keeps "beat" every 2 s and "midnight" at 00:00 in Paris: on the
    /// controlled clock the cron fires once at 23:00 UTC and moves to the next day.
    @Test func aCronScheduleCrossesMidnightOnTheControlledClock() async throws {
        let fixtures = ParleyBinary.repository.appendingPathComponent("Tests/ParleyShellTests/Plugins")
        let parley = ParleyBinary(serverURL: nil)
        // And the Python helper's every, cron and chat_command, in New York time.
        for name in ["ticker.sh", "pyticker.py"] {
            let base = URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent
            let result = try await parley.run(
                arguments: [
                    "bot", "test", fixtures.appendingPathComponent(name).path, fixtures.appendingPathComponent(base + ".transcript").path,
                ],
                environment: ["TICKER_EVERY": "60"], useData: false)
            #expect(result.status == 0, "\(name): \(result.stdout) \(result.stderr)")
            #expect(result.lines.first?.hasPrefix("PASS ") == true, "\(result.lines)")
        }
    }
}

/// Schedules kept by `parley bot` across its restarts, on the wall clock.
@Suite struct BotScheduleTests {
    static let ticker = ParleyBinary.repository.appendingPathComponent("Tests/ParleyShellTests/Plugins/ticker.sh").path

    static func startTicker(_ parley: ParleyBinary, run: String, once: Date?) async throws -> (ChildProcess, ParleyBinary.Conversation) {
        var environment = ProcessInfo.processInfo.environment
        environment["PARLEY_BCRYPT_COST"] = "4"
        environment["TICKER_RUN"] = run
        environment["TICKER_ONCE"] = once.map { ISO8601DateFormatter().string(from: $0) }
        let bot = try ChildProcess(
            ParleyBinary.executable.path,
            ["bot", ticker, "--as", "@ticker", "--data", parley.data.path, "--server", try #require(parley.serverURL)],
            environment: environment, directory: ParleyBinary.repository.path, stderr: .pipe)
        let log = ParleyBinary.Conversation(process: bot, input: FileHandle.nullDevice, output: try #require(bot.errors))
        #expect(try await log.waitForLine(containing: "loaded ticker") != nil)
        return (bot, log)
    }

    /// A schedule fires on time; one made before `parley bot` stopped fires after it
    /// restarts; and one due while it was down — an interval missed several times, a
    /// time that passed — fires once, marked late.
    @Test func schedulesOutliveParleyBotAndFireOnceForTheTimeItWasDown() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let signUp = try await parley.run("/register alice@example.com --handle alice --password secret-alice")
        #expect(signUp.status == 0, "\(signUp.stderr)")
        // The first run must stop before its "once" is due, however slow the machine: it
        // is frozen (SIGSTOP) as soon as it has loaded, when no tick can come from it, and
        // ended there; if "once" was due by then, another run tries with twice the lead.
        var once = Date()
        for attempt in 0..<6 {
            once = Date().addingTimeInterval(10 * Double(1 << attempt))
            let (first, _) = try await Self.startTicker(parley, run: "first-\(attempt)", once: once)
            first.terminate(SIGSTOP)
            let stoppedInTime = Date() < once
            first.terminate(SIGKILL)
            await onOwnThread { first.waitUntilExit() }
            if stoppedInTime { break }
        }
        // Time passes while no bot runs: "once" comes due, and "beat" (every 2 s) several times.
        while Date() < once.addingTimeInterval(4) { guard await pause(.milliseconds(200)) else { break } }
        let (second, _) = try await Self.startTicker(parley, run: "2", once: nil)
        defer {
            second.terminate()
            second.waitUntilExit()
        }
        var lines: [String] = []
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline {
            // All of it: a loaded machine may take long enough between looks for the
            // beats on time to push the late ones out of a short page.
            let history = try await parley.run("/history @ticker 1000")
            lines = history.lines.filter { $0.contains("tick ") }
            if lines.contains(where: { $0.contains("tick beat late=false run=2") }) { break }
            guard await pause(.milliseconds(200)) else { break }
        }
        #expect(lines.contains { $0.contains("tick beat late=false run=2") }, "beats go on, on time: \(lines)")
        #expect(lines.filter { $0.contains("tick once ") && $0.contains("run=2") }.count == 1, "\(lines)")
        #expect(lines.contains { $0.contains("tick once late=true run=2") }, "\(lines)")
        #expect(lines.filter { $0.contains("tick beat late=true run=2") }.count == 1, "missed beats fire once: \(lines)")
        // The late ones come first, before any beat on time after the restart.
        let firstOnTime = try #require(lines.firstIndex { $0.contains("late=false run=2") })
        #expect(lines[..<firstOnTime].filter { $0.contains("run=2") }.count == 2, "\(lines)")
    }
}

/// The harness's clock against the server's: the ticks `parley bot` sent on a server, on
/// the wall clock, are the ticks `parley bot test` expects of the same plugin with its
/// clock set where the server's run began.
@Suite struct BotScheduleParityTests {
    @Test func aTranscriptExpectsTheTicksTheServerSent() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        #expect(try await parley.run("/register alice@example.com --handle alice --password secret-alice").status == 0)
        let (bot, _) = try await BotScheduleTests.startTicker(parley, run: "1", once: nil)
        var beats: [String] = []
        do {
            defer {
                bot.terminate()
                bot.waitUntilExit()
            }
            let deadline = Date().addingTimeInterval(300)
            while Date() < deadline, beats.count < 3 {
                beats = try await parley.run("/history @ticker 1000").lines.compactMap { line in
                    line.range(of: "tick beat ").map { String(line[$0.lowerBound...]) }
                }
                if beats.count < 3 { guard await pause(.milliseconds(500)) else { break } }
            }
        }
        try #require(beats.count >= 3, "\(beats)")
        let ticks = Array(beats.prefix(3))
        #expect(ticks.allSatisfy { $0.contains("late=false run=1") }, "\(ticks)")
        // The first beat was due one interval after the bot's hello: the harness starts there.
        let first = try #require(ticks[0].components(separatedBy: "due=").last)
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let start = try #require(format.date(from: first)).addingTimeInterval(-2)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-parity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let transcript = folder.appendingPathComponent("ticker.transcript")
        try (["people alice", "clock \(format.string(from: start))", "wait 6s"] + ticks.map { "< " + $0 }).joined(separator: "\n")
            .write(to: transcript, atomically: true, encoding: .utf8)
        let result = try await parley.run(
            arguments: ["bot", "test", BotScheduleTests.ticker, transcript.path], environment: ["TICKER_RUN": "1"], useData: false)
        #expect(result.status == 0 && result.lines.first?.hasPrefix("PASS ") == true, "\(ticks)\n\(result.stdout) \(result.stderr)")
    }
}
