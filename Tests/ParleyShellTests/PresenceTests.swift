import Foundation
import ParleyTesting
import Testing

extension ParleyBinary.Conversation {
    /// `/online #G`'s count, asked until it is `count` (each answer is awaited before
    /// asking again, so this waits on the server, not on a clock).
    func waitUntilOnline(_ group: String, count: Int) async throws -> Bool {
        for _ in 0..<3000 {
            try await send("/online \(group)")
            guard let line = try await waitForLine(containing: "\(group): ") else { return false }
            if line.contains("\(group): \(count) online") { return true }
            guard await pause(.milliseconds(100)) else { break }
        }
        return false
    }

    /// Asks `command` until an answer line contains `text`; each answer's last line
    /// contains `end`.
    func waitUntil(_ command: String, answers text: String, end: String) async throws -> Bool {
        for _ in 0..<3000 {
            try await send(command)
            try await send("/whoami")
            var seen = false
            while let line = try await waitForLine(containing: "") {
                if line.contains(text) { seen = true }
                // An error (the server restarting) also ends this round of asking.
                if line.contains(end) || line.contains("error: ") { break }
            }
            if seen { return true }
            guard await pause(.milliseconds(100)) else { break }
        }
        return false
    }
}

/// Presence when a client stops answering, and what an interactive shell keeps
/// across a restart of itself or of the server.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct PresenceTests {
    static let pingTimeout = 6.0

    /// A server with alice and bob in #room, bob's shell folder beside it, and alice's
    /// script shell signed in.
    static func room() async throws -> (server: ParleyBinary, bob: ParleyBinary, alice: ParleyBinary.Conversation) {
        let server = try await ParleyBinary(mode: .server, serverArguments: ["--ping-timeout", String(pingTimeout)])
        let setup = try await server.run("/register alice@example.com --handle alice --password secret-alice\n/create #room\n")
        #expect(setup.status == 0, "\(setup.stderr)")
        let bob = ParleyBinary(clientOf: server)
        let joined = try await bob.run("/register bob@example.com --handle bob --password secret-bob\n/join #room\n")
        #expect(joined.status == 0, "\(joined.stderr)")
        let alice = try server.converse()
        return (server, bob, alice)
    }

    /// bob's shell stops answering (SIGSTOP) while alice watches #room: he is shown
    /// offline, through the server's pings, whether his shell was interactive on a
    /// terminal or reading a script from a pipe.
    @Test(arguments: [true, false]) func aStoppedShellIsShownOfflineWithinThePingTimeout(onATerminal: Bool) async throws {
        let (server, bob, alice) = try await Self.room()
        defer {
            alice.finish()
            bob.remove()
            server.remove()
        }
        let pid: Int32
        var terminal: TmuxSession?
        var piped: ParleyBinary.Conversation?
        if onATerminal {
            // The shell runs under sh, not as tmux's own child: tmux continues a pane's
            // process as soon as it stops, sh does not.
            let session = TmuxSession()
            terminal = session
            try await session.start(
                "sh -c 'PARLEY_BCRYPT_COST=4 NO_COLOR=1 \(ParleyBinary.executable.path) --data \(bob.data.path) --server \(server.serverURL!); true'"
            )
            _ = try await session.waitFor("bob>")
            try await session.type("/switch #room", "Enter")
            _ = try await session.waitFor("bob #room>")
            let shell = try #require(
                Int32(try session.tmux(["display-message", "-p", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)))
            let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
            pid = try #require(children.split(separator: " ").first.flatMap { Int32($0) })
        } else {
            let shell = try bob.converse()
            piped = shell
            try await shell.send("/switch #room")
            #expect(try await shell.waitForLine(containing: "Now in #room") != nil)
            pid = shell.process.processIdentifier
        }
        defer {
            kill(pid, SIGCONT)
            terminal?.stop()
            piped?.finish()
        }
        #expect(try await alice.waitUntilOnline("#room", count: 2))
        kill(pid, SIGSTOP)
        let stopped = Date()
        #expect(try await alice.waitUntilOnline("#room", count: 1), "bob went offline")
        let took = Date().timeIntervalSince(stopped)
        // Reported, not asserted: a figure for the notes, not a speed check.
        print(
            "stopped \(onATerminal ? "terminal" : "script") shell shown offline after \(String(format: "%.1f", took)) s (ping timeout \(Self.pingTimeout) s)"
        )
    }

    /// bob's interactive shell: what it shows in the chat he looks at is read; it says
    /// when the server goes and comes back, and he is still "(here)" after; quit and
    /// started again, it opens in the same chat.
    @Test func anInteractiveShellKeepsItsChatAcrossRestartsAndReadsWhatItShows() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-presence-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var server = try await ServeProcess.startRestartable(data: folder.appendingPathComponent("server"))
        defer { server.stop() }
        let alice = ParleyBinary(serverURL: server.url)
        let bob = ParleyBinary(serverURL: server.url)
        defer {
            alice.remove()
            bob.remove()
        }
        #expect(try await alice.run("/register alice@example.com --handle alice --password secret-alice\n/create #room\n").status == 0)
        #expect(try await bob.run("/register bob@example.com --handle bob --password secret-bob\n/join #room\n").status == 0)
        let command = "PARLEY_BCRYPT_COST=4 NO_COLOR=1 \(ParleyBinary.executable.path) --data \(bob.data.path) --server \(server.url)"
        var terminal = TmuxSession()
        defer { terminal.stop() }
        try await terminal.start(command)
        _ = try await terminal.waitFor("bob>")
        try await terminal.type("/switch #room", "Enter")
        _ = try await terminal.waitFor("bob #room>")

        // It asks again while the server restarts: an answer refused meanwhile must not end it.
        let watcher = try alice.converse(keepGoing: true)
        defer { watcher.finish() }
        try await watcher.send("/send #room are you there?")
        _ = try await terminal.waitFor("are you there?")
        #expect(try await watcher.waitUntil("/seen #room", answers: "seen by @bob", end: "@alice"), "shown to bob, so read")

        // The server restarts: bob's shell says so, and he is viewing #room again after.
        server.stop()
        _ = try await terminal.waitFor("[connection lost]")
        server = try await ServeProcess.start(data: folder.appendingPathComponent("server"), port: server.port)
        _ = try await terminal.waitFor("[connection back]")
        #expect(try await watcher.waitUntil("/online #room", answers: "@bob (here)", end: "@alice alice"))

        // Quit and start again: the shell opens in #room.
        try await terminal.type("C-d")
        _ = try await terminal.waitFor("the shell to exit") { $0.isEmpty }
        terminal.stop()
        terminal = TmuxSession()
        try await terminal.start(command)
        _ = try await terminal.waitFor("bob #room>")
    }
}
