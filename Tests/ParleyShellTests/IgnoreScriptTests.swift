import Foundation
import ParleyTesting
import Testing

/// `/ignore` kept by the server: what the ignored user says reaches neither the shell
/// nor the IRC client of whoever ignores them.
@Suite struct IgnoreScriptTests {
    @Test(arguments: StoreKind.all) func anIgnoredUserReachesNeitherTheShellNorIRC(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice", "bob", "carol"], store: store)
        defer { world.remove() }
        let (server, alice, bob, carol) = (world.server, world["alice"], world["bob"], world["carol"])
        #expect(try await bob.run("/register bob@example.com --handle bob --password builder-123").status == 0)
        #expect(try await carol.run("/register carol@example.com --handle carol --password carol-12345").status == 0)
        let set = try await alice.run(
            "/register alice@example.com --handle alice --password wonderland-1\n/create #team\n/invite @bob #team\n/invite @carol #team\n/ignore @bob\n/ignores"
        )
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            set.lines.suffix(2) == ["Ignoring @bob: their messages, mentions, invites and direct messages no longer reach you", "@bob"])

        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await irc.signIn("alice", password: "wonderland-1"))
        try irc.send("JOIN #team")
        #expect(await irc.wait(containing: " 366 alice #team ") != nil)
        #expect(try await bob.run("/send #team @alice look at this\n/send @alice psst").status == 0)
        #expect(try await carol.run("/send #team carol here").status == 0)
        // Carol's line comes after bob's two: had they reached alice, they would be first.
        let carolsLine = await irc.wait { $0.contains("PRIVMSG #team :carol here") }
        #expect(carolsLine != nil)
        let lines = irc.lines
        #expect(!lines.contains { $0.contains(":bob!") }, "\(lines)")
        let history = try await alice.run("/history #team\n/unignore @bob\n/history #team")
        #expect(history.status == 0, "\(history.stderr)")
        #expect(history.stdout.components(separatedBy: "look at this").count == 2, "once, after /unignore: \(history.lines)")
        #expect(history.lines.contains("No longer ignoring @bob"))
    }
}

/// A muted chat rings no bell in the shell, and `/chats` still counts what is unread.
@Suite(.serialized) struct MuteTerminalTests {
    @Test(arguments: StoreKind.all) func aMutedChatRingsNoBellAndStillCountsUnread(_ store: StoreKind) async throws {
        let parley = try await ParleyBinary(
            mode: .server, serverArguments: try store.serveArguments())
        defer { parley.remove() }
        let server = try #require(parley.serverURL)
        let alice = ParleyBinary(clientOf: parley)
        defer { alice.remove() }
        #expect(
            try await alice.run("/register alice@example.com --handle alice --password wonderland-1\n/create #team\n/create #random").status
                == 0)
        let setup = try await parley.run(
            "/register bob@example.com --handle bob --password builder-123\n/join #team\n/join #random\n/mute #random\n/notify #team mentions"
        )
        #expect(setup.status == 0, "\(setup.stderr)")
        #expect(setup.lines.contains("Muted #random (unread messages are still counted)"), "\(setup.lines)")
        #expect(setup.lines.contains("#team: only mentions of you ring; unread messages are still counted"), "\(setup.lines)")

        let bob = TmuxSession()
        defer { bob.stop() }
        let raw = parley.data.appendingPathComponent("bob-terminal.raw")
        try await bob.start(
            "env -u NO_COLOR TERM=xterm-256color \(ParleyBinary.executable.path) --data \(parley.data.path) --server \(server)")
        _ = try bob.tmux(["pipe-pane", "-t", bob.name, "-o", "cat >> \(raw.path)"])
        _ = try await bob.waitFor("bob>")
        #expect(
            try await alice.run("/send #random @bob in the muted one\n/send #team no mention here\n/send #team @bob in team").status == 0)
        _ = try await bob.waitFor("@bob in team")
        let bytes = try await rawOnceBellFollows("@bob in team", in: raw)
        #expect(bytes.filter { $0 == 0x07 }.count == 1, "only the mention in #team rings")
        let text = String(decoding: bytes, as: UTF8.self)
        let team = try #require(text.range(of: "@bob in team"))
        #expect(text[team.upperBound...].contains("\u{07}"), "the bell follows the #team mention")
        try await bob.type("/chats", "Enter")
        let screen = try await bob.waitFor("muted)")
        #expect(screen.contains("#random (1 unread, 1 mention, muted)"), "\(screen)")
    }
}

/// A level set on one client is followed by the user's shell already open elsewhere.
@Suite(.serialized) struct MuteElsewhereTerminalTests {
    @Test(arguments: StoreKind.all) func aShellFollowsAMuteSetOnAnotherClient(_ store: StoreKind) async throws {
        let parley = try await ParleyBinary(
            mode: .server, serverArguments: try store.serveArguments())
        defer { parley.remove() }
        let server = try #require(parley.serverURL)
        let alice = ParleyBinary(clientOf: parley)
        defer { alice.remove() }
        #expect(try await alice.run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        #expect(try await parley.run("/register bob@example.com --handle bob --password builder-123\n/join #team").status == 0)
        let bob = TmuxSession()
        defer { bob.stop() }
        let raw = parley.data.appendingPathComponent("bob-terminal.raw")
        try await bob.start(
            "env -u NO_COLOR TERM=xterm-256color \(ParleyBinary.executable.path) --data \(parley.data.path) --server \(server)")
        _ = try bob.tmux(["pipe-pane", "-t", bob.name, "-o", "cat >> \(raw.path)"])
        _ = try await bob.waitFor("bob>")
        // The shell reads the levels once, at the first message it shows.
        #expect(try await alice.run("/send #team good morning").status == 0)
        _ = try await bob.waitFor("good morning")
        // bob mutes #team from another client (a script on his data folder), then alice
        // mentions him there, then writes to him directly: only the direct message rings.
        #expect(try await parley.run("/mute #team").status == 0)
        #expect(try await alice.run("/send #team @bob muted mention\n/send @bob direct one").status == 0)
        _ = try await bob.waitFor("direct one")
        let bytes = try await rawOnceBellFollows("direct one", in: raw)
        #expect(bytes.filter { $0 == 0x07 }.count == 1, "only the direct message rings")
    }
}

/// A change of a group's rules made in the shell reaches its IRC members as a MODE line
/// saying what changed (it used to reach no IRC client).
@Suite struct RulesToIRCTests {
    @Test(arguments: StoreKind.all) func aRulesChangeInTheShellIsAModeLineOnIRC(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice", "bob"], store: store)
        defer { world.remove() }
        #expect(
            try await world["alice"].run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        #expect(try await world["bob"].run("/register bob@example.com --handle bob --password builder-123\n/join #team").status == 0)
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123"))
        #expect(await irc.wait(containing: " 366 bob #team ") != nil)
        let changed = try await world["alice"].run("/rules #team posting=voiced limit=50\n/rules #team topic=anyone visibility=private")
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(await irc.wait(containing: ":alice!alice@parley MODE #team +ml 50") != nil)
        #expect(await irc.wait(containing: ":alice!alice@parley MODE #team -t+i") != nil)
    }
}

/// A pane's raw copy (`pipe-pane`), read once a bell follows `line` in it: the copy
/// trails the screen. After two minutes without one, as it is then.
func rawOnceBellFollows(_ line: String, in raw: URL) async throws -> Data {
    let read = { (try? Data(contentsOf: raw)) ?? Data() }
    return try await ParleyBinaryWait.until { () -> Data? in
        let bytes = read()
        let text = String(decoding: bytes, as: UTF8.self)
        guard let found = text.range(of: line), text[found.upperBound...].contains("\u{07}") else { return nil }
        return bytes
    } ?? read()
}
