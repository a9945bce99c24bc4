import Foundation
import ParleyTesting
import Testing

/// Mentions, replies, edits, deletions and typing as two people see them: both shells
/// in tmux against one server, the second reading the first's raw output for the bell
/// and the highlight.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ConversationTerminalTests {
    @Test func mentionsRingRepliesQuoteAndEditsReachTheOtherUser() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let server = try #require(parley.serverURL)
        let setup = try await parley.run(
            """
            /register alice@example.com --handle alice --password secret-alice
            /create #club
            /logout
            /register bob@example.com --handle bob --password secret-bob
            /join #club
            """)
        #expect(setup.status == 0, "\(setup.stderr)")
        let alice = ParleyBinary(clientOf: parley)
        defer { alice.remove() }
        #expect(try await alice.run("/login @alice --password secret-alice\n").status == 0)

        let bob = TmuxSession()
        defer { bob.stop() }
        let raw = parley.data.appendingPathComponent("bob-terminal.raw")
        // In colour, whatever the environment the tests run in says.
        try await bob.start(
            "env -u NO_COLOR TERM=xterm-256color \(ParleyBinary.executable.path) --data \(parley.data.path) --server \(server)")
        _ = try bob.tmux(["pipe-pane", "-t", bob.name, "-o", "cat >> \(raw.path)"])
        _ = try await bob.waitFor("bob>")
        _ = try await bob.firstCommand("/switch #club", until: "bob #club>")

        // Typing in alice's shell shows before bob's prompt.
        let aliceTerminal = TmuxSession()
        defer { aliceTerminal.stop() }
        try await aliceTerminal.start("NO_COLOR=1 \(ParleyBinary.executable.path) --data \(alice.data.path) --server \(server)")
        _ = try await aliceTerminal.waitFor("alice>")
        _ = try await aliceTerminal.firstCommand("/switch #club", until: "alice #club>")
        try await aliceTerminal.type("@bob standup no")
        // Read from what bob's terminal was sent, not from a look at the screen: the
        // status shows for 6 s, which a loaded machine's polls can miss.
        let typed = try await OutgoingHookScriptTests.poll({ String(decoding: try Data(contentsOf: raw), as: UTF8.self) }) {
            $0.contains("(@alice typing…)")
        }
        #expect(typed.contains("(@alice typing…)"), "bob's terminal was never told alice was typing")
        try await aliceTerminal.type("w", "Enter")
        var screen = try await bob.waitFor("<alice> @bob standup now")
        #expect(try await bob.waitFor("the typing status goes with the message") { !$0.contains("typing…") }.contains("bob #club>"))

        // The mention is highlighted and rings; a plain line does not; a direct message
        // from outside the current chat rings again.
        try await aliceTerminal.type("no mention here", "Enter")
        _ = try await bob.waitFor("<alice> no mention here")
        #expect(try await alice.run("/msg @bob psst\n").status == 0)
        _ = try await bob.waitFor("<alice> psst")
        let bytes = try Data(contentsOf: raw)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(bytes.filter { $0 == 0x07 }.count == 2, "one bell for the mention, one for the direct message")
        #expect(text.contains("\u{1B}[1;33m@bob standup now"), "the mention is bold yellow")
        #expect(!text.contains("\u{1B}[1;33mno mention here"))

        // A reply shows the head of what it answers.
        try await aliceTerminal.type("/reply 1 and bring coffee", "Enter")
        screen = try await bob.waitFor("<alice> and bring coffee")
        #expect(screen.contains("↳ @alice: @bob standup now"))

        // An edit and a delete reach bob as they happen, and in his history.
        try await aliceTerminal.type("/edit 2 no mention here, promise", "Enter")
        _ = try await bob.waitFor("* @alice edited message 2 in #club: no mention here, promise")
        try await aliceTerminal.type("/delete 1", "Enter")
        _ = try await bob.waitFor("* message 1 of @alice in #club was deleted")
        try await bob.type("/history", "Enter")
        screen = try await bob.waitFor("↳ @alice: (deleted)")
        #expect(screen.contains("<alice> (deleted)"))
        #expect(screen.contains("<alice> no mention here, promise (edited)"))
        try await bob.type("/chats", "Enter")
        screen = try await bob.waitFor("@alice (1 unread)")
        #expect(screen.contains("#club ["), "bob has read #club, which he is looking at")
    }

    @Test func aNotifyCommandRunsInsteadOfTheBell() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let server = try #require(parley.serverURL)
        let setup = try await parley.run(
            """
            /register alice@example.com --handle alice --password secret-alice
            /logout
            /register bob@example.com --handle bob --password secret-bob
            """)
        #expect(setup.status == 0, "\(setup.stderr)")
        let notes = parley.data.appendingPathComponent("notes.txt")
        let raw = parley.data.appendingPathComponent("bob-terminal.raw")
        let bob = TmuxSession()
        defer { bob.stop() }
        try await bob.start(
            "NO_COLOR=1 PARLEY_NOTIFY='echo >> \(notes.path)' \(ParleyBinary.executable.path) --data \(parley.data.path) --server \(server)"
        )
        _ = try bob.tmux(["pipe-pane", "-t", bob.name, "-o", "cat >> \(raw.path)"])
        _ = try await bob.waitFor("bob>")
        let alice = ParleyBinary(clientOf: parley)
        defer { alice.remove() }
        let script = #"/msg @bob $(touch /tmp/pwned) "; touch /tmp/pwned2 #"#
        #expect(try await alice.run("/login @alice --password secret-alice\n" + script + "\n").status == 0)
        _ = try await bob.waitFor("<alice> $(touch /tmp/pwned)")
        let noted = try await ParleyBinaryWait.until {
            (try? String(contentsOf: notes, encoding: .utf8))?.contains("<alice>") == true ? true : nil
        }
        #expect(noted == true, "the notify command ran")
        let line = try String(contentsOf: notes, encoding: .utf8)
        // The line is an argument, sanitized, never run.
        #expect(line.contains(#"@alice <alice> $(touch /tmp/pwned) "; touch /tmp/pwned2 #"#), "\(line)")
        #expect(!FileManager.default.fileExists(atPath: "/tmp/pwned") && !FileManager.default.fileExists(atPath: "/tmp/pwned2"))
        #expect(!(try Data(contentsOf: raw)).contains(0x07), "the command rings instead of the bell")
    }

    /// The hotlist: messages in two other chats show before the prompt, a mention with
    /// `!`, without touching the half-typed line; a chat leaves it once it is current. A
    /// muted chat stays out of it, and a mentions-only chat counts its mentions alone.
    @Test func theHotlistShowsOtherChatsWithNews() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let server = try #require(parley.serverURL)
        let bob = ParleyBinary(clientOf: parley)
        defer { bob.remove() }
        #expect(
            try await bob.run(
                "/register bob@example.com --handle bob --password secret-bob1\n/create #aa\n/create #bb\n/create #cc\n/create #dd"
            )
            .status == 0)
        #expect(
            try await parley.run(
                "/register ann@example.com --handle ann --password secret-ann1\n/join #aa\n/join #bb\n/join #cc\n/join #dd\n/mute #cc\n/notify #dd mentions"
            ).status == 0)
        let ann = TmuxSession()
        defer { ann.stop() }
        try await ann.start("\(ParleyBinary.executable.path) --data \(parley.data.path) --server \(server)")
        _ = try await ann.waitFor("ann>")
        try await ann.type("/switch #aa", "Enter")
        _ = try await ann.waitFor("ann #aa>")
        try await ann.type("half typed")
        _ = try await ann.waitFor("half typed")
        #expect(
            try await bob.run(
                "/send #bb one\n/send #bb two @ann\n/send #cc muted @ann\n/send #dd plain\n/send #dd hey @ann\n/send #dd plain again\n/msg @ann hi ann\n/send #aa here"
            ).status == 0)
        _ = try await ann.waitFor("(#bb 2! #dd 1! @bob 1) ann #aa> half typed")
        try await ann.type("C-u", "/switch #bb", "Enter")
        _ = try await ann.waitFor("(#dd 1! @bob 1) ann #bb>")
        try await ann.type("/switch #dd", "Enter")
        _ = try await ann.waitFor("(@bob 1) ann #dd>")
        try await ann.type("/query @bob", "Enter")
        let screen = try await ann.waitFor("ann @bob>")
        #expect(!screen.split(separator: "\n").last { $0.contains("ann @bob>") }!.contains("("), "\(screen)")
    }
}

extension TmuxSession {
    /// Types the first command of a shell that has just shown its prompt, and waits for
    /// `text`. Under load, keys sent in the moment the line editor takes over the
    /// terminal were seen to vanish without an echo: when the command never shows on
    /// the screen at all, it is typed again (it cannot have run).
    func firstCommand(_ command: String, until text: String) async throws -> String {
        for _ in 0..<5 {
            try await type(command, "Enter")
            let deadline = Date().addingTimeInterval(15)
            while Date() < deadline {
                let shown = try screen()
                if shown.contains(text) { return shown }
                guard await pause(.milliseconds(50)) else { break }
            }
            if try screen().contains(command) { break }
        }
        return try await waitFor(text)
    }
}

/// Polls for a condition outside the terminal (a file another process writes).
enum ParleyBinaryWait {
    static func until<T>(timeout: Double = 120, _ condition: () throws -> T?) async throws -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if let value = try condition() { return value }
            guard await pause(.milliseconds(50)) else { break }
        }
        return try condition()
    }
}
