import Foundation
import ParleyTesting
import Testing

/// What a script sends while its server is down waits in the data folder's outbox: the
/// script says what is still queued and exits 3, and the next run on that folder sends
/// it, once.
@Suite(.timeLimit(.minutes(10))) struct OutboxScriptTests {
    @Test func aScriptsQueuedSendsSurviveItsServerAndLandOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-outbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let serverData = folder.appendingPathComponent("server")
        let server = try await ServeProcess.start(data: serverData)
        let alice = ParleyBinary(serverURL: server.url)
        defer { alice.remove() }
        let made = try await alice.run(
            """
            /register alice@example.com --handle alice --password wonderland-1
            /create #swift Swift on Linux
            """)
        #expect(made.status == 0, "\(made.stderr)")

        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        let script = try ChildProcess(
            ParleyBinary.executable.path,
            ["--data", alice.data.path, "--server", server.url, "--queue-wait", "1", "run", "-"],
            environment: environment, stdin: .pipe, stdout: .pipe, stderr: .pipe)
        let (input, output, errors) = (try #require(script.input), try #require(script.output), try #require(script.errors))
        var seen = ""
        func waitFor(_ text: String) -> Bool {
            while !seen.contains(text) {
                let chunk = output.availableData
                if chunk.isEmpty { return false }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            return true
        }
        try input.write(contentsOf: Data("/send #swift before the crash\n".utf8))
        #expect(waitFor("before the crash"))
        server.kill()
        try input.write(contentsOf: Data("/send #swift queued one\n/send #swift queued two\n".utf8))
        #expect(waitFor("[pending] #swift queued two"), "\(seen)")
        try input.close()
        script.waitUntilExit()
        let complaint = String(decoding: errors.readDataToEndOfFile(), as: UTF8.self)
        #expect(script.terminationStatus == 3, "\(complaint)")
        #expect(complaint.contains("2 messages are still queued") && complaint.contains("\"queued one\", \"queued two\""), "\(complaint)")

        // The server is back on its address; the next run on the folder sends them. (Its
        // port may be a moment in another test's hands, which took it while it was free:
        // tried again until it binds.)
        var restarted: ServeProcess?
        let deadline = ContinuousClock.now + .seconds(120)
        while restarted == nil {
            do {
                restarted = try await ServeProcess.start(data: serverData, port: server.port)
            } catch  where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        let again = try #require(restarted)
        defer { again.stop() }
        func counts() async throws -> [String: Int] {
            let lines = try await alice.run("/history #swift 20").lines
            var counts: [String: Int] = [:]
            for text in ["before the crash", "queued one", "queued two"] { counts[text] = lines.filter { $0.hasSuffix("> " + text) }.count }
            return counts
        }
        #expect(try await IRCGatewayTests.eventually { try await counts()["queued two"] == 1 })
        #expect(try await counts() == ["before the crash": 1, "queued one": 1, "queued two": 1])
        let outbox = alice.sessionFolder.appendingPathComponent("outbox.json")
        #expect(!FileManager.default.fileExists(atPath: outbox.path), "the outbox is empty once they landed")
    }

    /// 200 sends of a script across a `kill -9` of its server and a restart, some made
    /// while it is down and some while the shell reconnects: each lands once, in the
    /// order the script sent them, and the script exits 0.
    @Test func queuedSendsCrossAKillInOrderAndOnce() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-outbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let serverData = folder.appendingPathComponent("server")
        let server = try await ServeProcess.start(data: serverData)
        let alice = ParleyBinary(serverURL: server.url)
        defer { alice.remove() }
        #expect(try await alice.run("/register alice@example.com --handle alice --password wonderland-1\n/create #queue").status == 0)

        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        let script = try ChildProcess(
            ParleyBinary.executable.path, ["--data", alice.data.path, "--server", server.url, "run", "-"], environment: environment,
            stdin: .pipe, stdout: .pipe, stderr: .pipe)
        let (input, output, errors) = (try #require(script.input), try #require(script.output), try #require(script.errors))
        var seen = ""
        func waitFor(_ text: String) -> Bool {
            while !seen.contains(text) {
                let chunk = output.availableData
                if chunk.isEmpty { return false }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            return true
        }
        // One at a time, each written once the shell has answered the one before (sent,
        // or pending), as a script that sends now and then does.
        func send(_ numbers: ClosedRange<Int>) async throws {
            for number in numbers {
                let text = "outbox \(String(format: "%03d", number))"
                try input.write(contentsOf: Data("/send #queue \(text)\n".utf8))
                #expect(waitFor(text), "\(seen.suffix(300))")
            }
        }
        try await send(1...80)
        #expect(waitFor("outbox 080"), "\(seen.suffix(300))")
        server.kill()
        try await send(81...140)
        #expect(waitFor("[pending] #queue outbox 140"), "\(seen.suffix(300))")
        let again = try await ServeProcess.start(data: serverData, port: server.port)
        defer { again.stop() }
        // Straight on, while the shell is still finding the server again.
        try await send(141...200)
        try input.close()
        let rest = output.readDataToEndOfFile()
        script.waitUntilExit()
        let complaint = String(decoding: errors.readDataToEndOfFile(), as: UTF8.self)
        #expect(script.terminationStatus == 0, "\(complaint) \(String(decoding: rest, as: UTF8.self).suffix(300))")

        let history = try await alice.run("/history #queue 300")
        let numbers = history.lines.compactMap { $0.firstMatch(of: /> outbox (\d{3})$/).flatMap { Int($0.1) } }
        #expect(
            numbers == Array(1...200),
            "\(numbers.count) landed; out of order or twice: \(numbers.enumerated().filter { $0.element != $0.offset + 1 }.prefix(5))")
    }
}
