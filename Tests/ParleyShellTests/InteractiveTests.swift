import Foundation
import ParleyTesting
import Testing

/// Drives the real binary in a tmux pseudo-terminal and reads the screen.
struct TmuxSession {
    let socket = "parley-test-\(UUID().uuidString.prefix(8))"
    let name = "shell"

    /// Runs a tmux command and returns its output. Nothing else of this process may leak
    /// into tmux, whose server outlives the call: an inherited listening socket of an
    /// in-process test server kept its port taken, and an inherited pipe would never end
    /// (`ChildProcess` passes on only the three streams).
    @discardableResult
    func tmux(_ arguments: [String], captureOutput: Bool = true) throws -> String {
        let process = try ChildProcess("/usr/bin/env", ["tmux", "-L", socket] + arguments, stdout: captureOutput ? .pipe : .null)
        let output = process.output?.readDataToEndOfFile() ?? Data()
        process.waitUntilExit()
        return String(decoding: output, as: UTF8.self)
    }

    func start(_ command: String) async throws {
        try tmux(["new-session", "-d", "-s", name, "-x", "100", "-y", "30", command], captureOutput: false)
    }

    func type(_ keys: String...) async throws {
        try tmux(["send-keys", "-t", name] + keys)
    }

    func screen() throws -> String {
        try tmux(["capture-pane", "-t", name, "-p"])
    }

    /// Waits until the screen satisfies `condition` (the timeout only guards against a hang).
    func waitFor(_ description: String, timeout: Double = 120, _ condition: (String) -> Bool) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        var last = ""
        while Date() < deadline {
            last = try screen()
            if condition(last) { return last }
            guard await pause(.milliseconds(50)) else { break }
        }
        Issue.record("timed out waiting for \(description); screen:\n\(last)")
        return last
    }

    func waitFor(_ text: String) async throws -> String {
        try await waitFor("'\(text)'") { $0.contains(text) }
    }

    func stop() {
        // The tmux server may linger after kill-server while its pane's client winds
        // down; it is killed outright so no test leaves a process behind.
        let pid = (try? tmux(["display-message", "-p", "#{pid}"]))?.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try? tmux(["kill-server"])
        if let pid = pid.flatMap({ Int32($0) }), pid > 0 { kill(pid, SIGKILL) }
    }
}

@Suite(.serialized, .timeLimit(.minutes(10))) struct InteractiveTests {
    @Test func promptCompletionPasswordsAndCtrlC() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let terminal = TmuxSession()
        defer { terminal.stop() }
        try await terminal.start("PARLEY_BCRYPT_COST=4 \(ParleyBinary.executable.path) --data \(parley.data.path)")
        _ = try await terminal.waitFor("parley>")

        // Tab completes a command name (capture-pane trims trailing spaces, hence no space after prompts).
        try await terminal.type("/regis", "Tab")
        _ = try await terminal.waitFor("parley> /register")
        try await terminal.type("ann@example.com --handle ann", "Enter")

        // The password is asked twice without echo.
        _ = try await terminal.waitFor("Password:")
        try await terminal.type("hunter22-secret", "Enter")
        _ = try await terminal.waitFor("Again:")
        try await terminal.type("hunter22-secret", "Enter")
        var screen = try await terminal.waitFor("Welcome, @ann")
        #expect(!screen.contains("hunter22"))
        _ = try await terminal.waitFor("ann>")

        // The prompt shows where we are; tab completes a #group.
        try await terminal.type("/create #swift Swift on Linux", "Enter")
        _ = try await terminal.waitFor("ann #swift>")
        try await terminal.type("/members #sw", "Tab")
        _ = try await terminal.waitFor("/members #swift")
        try await terminal.type("Enter")
        _ = try await terminal.waitFor("#swift: 1 members")

        // Ctrl-C drops the half-typed line and gives a fresh prompt.
        try await terminal.type("half typed line")
        _ = try await terminal.waitFor("half typed line")
        try await terminal.type("C-c")
        try await terminal.type("/whoami", "Enter")
        screen = try await terminal.waitFor("@ann ann <ann@example.com>")
        #expect(screen.contains("half typed line^C"))
        #expect(!screen.contains("half typed line/whoami"))

        // A password on the command line works but never reaches the history file.
        try await terminal.type("/logout", "Enter")
        _ = try await terminal.waitFor("parley>")
        try await terminal.type("/login @ann --password hunter22-secret", "Enter")
        _ = try await terminal.waitFor("Signed in as @ann")

        // Ctrl-D quits.
        try await terminal.type("C-d")
        // When the shell exits its tmux session ends and the screen can no longer be read.
        _ = try await terminal.waitFor("the shell to exit") { $0.isEmpty }
        let history = try String(contentsOf: parley.data.appendingPathComponent("history"), encoding: .utf8)
        #expect(history.contains("/create #swift Swift on Linux"))
        #expect(history.contains("/members #swift"))
        #expect(!history.contains("hunter22"))
        #expect(!history.contains("--password"))
    }

    /// Ctrl-C at a password prompt, at the first question or the last, cancels the
    /// command: it says so, changes nothing, and the shell goes on; the prompt is drawn
    /// on a clean line.
    @Test func ctrlCAtAPromptCancelsTheCommand() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let setup = try await parley.run("/register ann@example.com --handle ann --password secret-ann1\n/create #a-rather-long-group-name")
        #expect(setup.status == 0, "\(setup.stderr)")
        let terminal = TmuxSession()
        defer { terminal.stop() }
        try await terminal.start(
            "PARLEY_BCRYPT_COST=4 \(ParleyBinary.executable.path) --data \(parley.data.path) --server \(try #require(parley.serverURL))")
        _ = try await terminal.waitFor("ann>")
        try await terminal.type("/switch #a-rather-long-group-name", "Enter")
        _ = try await terminal.waitFor("ann #a-rather-long-group-name>")
        try await terminal.type("/passwd", "Enter")
        var screen = try await terminal.waitFor("Current password:")
        #expect(screen.split(separator: "\n").contains { $0.hasPrefix("Current password:") }, "on a line of its own:\n\(screen)")
        try await terminal.type("C-c")
        _ = try await terminal.waitFor("cancelled; nothing was changed")
        try await terminal.type("/passwd", "Enter")
        _ = try await terminal.waitFor("Current password:")
        try await terminal.type("secret-ann1", "Enter")
        _ = try await terminal.waitFor("New password:")
        try await terminal.type("secret-ann2", "Enter")
        _ = try await terminal.waitFor("Again:")
        try await terminal.type("C-c")
        screen = try await terminal.waitFor("the second cancel") { $0.components(separatedBy: "cancelled; nothing was changed").count == 3 }
        #expect(!screen.contains("internal") && !screen.contains("unavailable") && !screen.contains("CancellationError"), "\(screen)")
        // The shell goes on, still connected, and the password is the old one. What a
        // command prints starts a clean line, with no tail of the prompt after it.
        try await terminal.type("/whoami", "Enter")
        _ = try await terminal.waitFor("/whoami's line, alone") { $0.split(separator: "\n").contains("@ann ann <ann@example.com>") }
        try await terminal.type("C-d")
        _ = try await terminal.waitFor("the shell to exit") { $0.isEmpty }
        let again = try await parley.run("/logout\n/login @ann --password secret-ann1")
        #expect(again.status == 0 && again.stdout.contains("Signed in as @ann"), "\(again.stderr)")
    }

    /// A shell stopped long enough for the server to let its connection go says so when
    /// it is continued, not that the server cannot be reached, and comes back.
    @Test func aStoppedShellSaysWhyItsConnectionWentWhenContinued() async throws {
        // Long enough that a busy machine does not drop the shell before it is stopped.
        let parley = try await ParleyBinary(mode: .server, serverArguments: ["--ping-timeout", "10"])
        defer { parley.remove() }
        #expect(try await parley.run("/register ann@example.com --handle ann --password secret-ann1").status == 0)
        let pidFile = parley.data.appendingPathComponent("sh.pid").path
        let terminal = TmuxSession()
        defer { terminal.stop() }
        // Under sh, so that tmux does not continue it: the shell is sh's child.
        try await terminal.start(
            "sh -c 'echo $$ > \(pidFile); PARLEY_BCRYPT_COST=4 \(ParleyBinary.executable.path) --data \(parley.data.path) "
                + "--server \(try #require(parley.serverURL)); true'")
        _ = try await terminal.waitFor("ann>")
        let sh = try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let found = try ChildProcess("/usr/bin/env", ["pgrep", "-P", sh], stdout: .pipe)
        let child = String(decoding: found.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        found.waitUntilExit()
        let shell = try #require(Int32(child.trimmingCharacters(in: .whitespacesAndNewlines)))
        let bob = ParleyBinary(clientOf: parley)
        defer { bob.remove() }
        #expect(try await bob.run("/register bob@example.com --handle bob --password secret-bob1").status == 0)
        // Online (a busy machine may have had the timeout drop her once already: she
        // reconnects), then stopped until the server has let her connection go. A stop in
        // the middle of such a reconnection is a loss the shell has told of already, so
        // the shell must be back from any loss first.
        var deadline = Date().addingTimeInterval(120)
        while Date() < deadline, try await !bob.run("/whois @ann").stdout.contains("online now") {
            guard await pause(.milliseconds(200)) else { break }
        }
        func count(_ text: String, _ screen: String) -> Int { screen.components(separatedBy: text).count - 1 }
        _ = try await terminal.waitFor("the shell to be connected") { count("[connection lost]", $0) == count("[connection back]", $0) }
        kill(shell, SIGSTOP)
        // Offline is read from a whois that answered: a run that failed under load says
        // nothing of ann, and continuing her while still connected would lose nothing.
        func seenOffline() async throws -> Bool {
            let whois = try await bob.run("/whois @ann")
            return whois.status == 0 && whois.stdout.contains("last seen")
        }
        deadline = Date().addingTimeInterval(600)
        while Date() < deadline, try await !seenOffline() { guard await pause(.milliseconds(200)) else { break } }
        kill(shell, SIGCONT)
        let screen = try await terminal.waitFor("the loss after the stop") { $0.contains("[connection lost] the shell was stopped") }
        _ = try await terminal.waitFor("[connection back]")
        #expect(screen.contains("the shell was stopped, and ws://"), "\(screen)")
    }

    /// Tab completes a path anywhere on the line (absolute, `~`-less relative alike) and a
    /// handle this shell has never seen, from the server's directory as it is typed.
    @Test func completionOfPathsMidLineAndOfHandlesNeverSeen() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let setup = try await parley.run(
            """
            /register zed@example.com --handle zedediah --password secret-zed1
            /logout
            /register ann@example.com --handle ann --password secret-ann1
            /create #swift Swift on Linux
            """)
        #expect(setup.status == 0, "\(setup.stderr)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-complete-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("notes".utf8).write(to: folder.appendingPathComponent("quarterly-report.txt"))

        let terminal = TmuxSession()
        defer { terminal.stop() }
        try await terminal.start("PARLEY_BCRYPT_COST=4 \(ParleyBinary.executable.path) --data \(parley.data.path)")
        _ = try await terminal.waitFor("ann>")
        // An absolute path after the command: a file name, not a command.
        try await terminal.type("/image #swift \(folder.path)/quart", "Tab")
        _ = try await terminal.waitFor("\(folder.path)/quarterly-report.txt")
        try await terminal.type("C-c")
        // zedediah shares no chat with ann, and this shell has never printed his handle.
        // A Tab waits 0.7 s for the directory; on a machine too busy for that, the answer
        // lands in the cache and the next Tab completes, as a person would press again.
        func tabUntil(_ text: String) async throws {
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline {
                try await terminal.type("Tab")
                // The Tab's answer, for up to 2 s before the next one.
                let answered = Date().addingTimeInterval(2)
                while Date() < answered {
                    if try terminal.screen().contains(text) { return }
                    guard await pause(.milliseconds(50)) else { break }
                }
            }
            Issue.record("Tab never completed to \(text)")
        }
        try await terminal.type("hello @zed")
        try await tabUntil("hello @zedediah")
        try await terminal.type("C-c")
        try await terminal.type("/whois @zede")
        try await tabUntil("/whois @zedediah")
        try await terminal.type("Enter")
        _ = try await terminal.waitFor("@zedediah zedediah")
    }

    /// Bob types half a line; a message from alice arrives through the server and is
    /// printed above the prompt, and bob's half-typed line is still there to finish.
    @Test func anIncomingMessageLeavesTheHalfTypedLineIntact() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let server = try #require(parley.serverURL)
        let setup = try await parley.run(
            """
            /register alice@example.com --handle alice --password secret-alice
            /create #tea Tea time
            /logout
            /register bob@example.com --handle bob --password secret-bob
            /join #tea
            """)
        #expect(setup.status == 0, "\(setup.stderr)")

        let terminal = TmuxSession()
        defer { terminal.stop() }
        try await terminal.start("NO_COLOR=1 \(ParleyBinary.executable.path) --data \(parley.data.path) --server \(server)")
        _ = try await terminal.waitFor("bob>")
        try await terminal.type("/switch #tea", "Enter")
        _ = try await terminal.waitFor("bob #tea>")
        try await terminal.type("a reply I am still wri")
        _ = try await terminal.waitFor("bob #tea> a reply I am still wri")

        let alice = try await ParleyBinary()
        defer { alice.remove() }
        let sent = try await alice.run(
            "/login @alice --password secret-alice\n/send #tea the kettle is on\n", arguments: ["--server", server])
        #expect(sent.status == 0, "\(sent.stderr)")

        let screen = try await terminal.waitFor("<alice> the kettle is on")
        let lines = screen.split(separator: "\n").map(String.init)
        let message = try #require(lines.lastIndex { $0.contains("<alice> the kettle is on") })
        // The message sits above the prompt, which still holds the half-typed line.
        #expect(lines[(message + 1)...].contains { $0.hasSuffix("bob #tea> a reply I am still wri") })
        try await terminal.type("ting", "Enter")
        _ = try await terminal.waitFor("<bob> a reply I am still writing")
    }

    /// Suspended while at the prompt: the shell says so, and the prompt that follows
    /// names no one (it read `carol #ops>` before).
    @Test func aShellSignedOutByTheServerSaysSoInItsPrompt() async throws {
        let parley = try await ParleyBinary(mode: .server, serverArguments: ["--admin", "oscar"])
        defer { parley.remove() }
        let server = try #require(parley.serverURL)
        let oscar = ParleyBinary(clientOf: parley)
        defer { oscar.remove() }
        #expect(try await oscar.run("/register oscar@example.com --handle oscar --password operator-123").status == 0)
        let setup = try await parley.run("/register carol@example.com --handle carol --password secret-carol\n/create #ops")
        #expect(setup.status == 0, "\(setup.stderr)")

        let terminal = TmuxSession()
        defer { terminal.stop() }
        try await terminal.start("NO_COLOR=1 \(ParleyBinary.executable.path) --data \(parley.data.path) --server \(server)")
        _ = try await terminal.waitFor("carol>")
        try await terminal.type("/switch #ops", "Enter")
        _ = try await terminal.waitFor("carol #ops>")
        #expect(try await oscar.run("/suspend @carol testing the prompt").status == 0)
        let screen = try await terminal.waitFor("[signed out]")
        let lines = screen.split(separator: "\n").map(String.init)
        let notice = try #require(lines.lastIndex { $0.contains("[signed out]") })
        _ = try await terminal.waitFor("the prompt after the notice") { screen in
            let lines = screen.split(separator: "\n").map(String.init)
            return lines.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty }?.hasPrefix("parley>") == true
        }
        #expect(!lines[(notice + 1)...].contains { $0.hasPrefix("carol") }, "\(lines)")
    }
}
