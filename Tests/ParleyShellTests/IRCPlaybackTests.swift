import Foundation
import ParleyTesting
import Testing

/// A day away misses nothing: an IRC client that does not page history itself is played
/// back, when it connects, what was said in its groups and direct chats while its user
/// was away, in order and with each message's time.
@Suite(.timeLimit(.minutes(10))) struct IRCPlaybackTests {
    static func world(_ store: StoreKind) async throws -> IRCGatewayTests.World {
        try await IRCGatewayTests.world(arguments: try store.serveArguments())
    }

    /// bob signs in on IRC, joins #swift and quits: from now on he is away.
    static func joinThenLeave(port: Int) async throws {
        let first = try IRCTestClient(port: port)
        #expect(try await first.signIn("bob", password: "builder-123"))
        try first.send("JOIN #swift")
        #expect(await first.wait(containing: " 366 bob #swift ") != nil)
        try first.send("QUIT :lunch")
        #expect(await first.wait(containing: "ERROR :Closing link") != nil)
    }

    @Test(arguments: StoreKind.all) func aClientWithoutChathistoryGetsWhatItMissed(_ store: StoreKind) async throws {
        let world = try await Self.world(store)
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        try await Self.joinThenLeave(port: port)

        // While bob is away, alice talks in #swift and writes to him.
        let said = try await world.alice.run(
            """
            /send #swift while bob was away
            /msg @bob psst, bob
            /send #swift and one more
            """)
        #expect(said.status == 0, "\(said.stderr)")

        let back = try IRCTestClient(port: port)
        #expect(try await back.signIn("bob", password: "builder-123", capabilities: ["server-time"]))
        #expect(await back.wait(containing: "NOTICE bob :Playing back 3 messages you missed") != nil)
        let group = try #require(await back.wait(containing: "PRIVMSG #swift :while bob was away"))
        #expect(group.hasPrefix("@time=20") && group.contains(" :alice!alice@parley PRIVMSG #swift "))
        let direct = try #require(await back.wait(containing: "PRIVMSG bob :psst, bob"))
        #expect(direct.contains(" :alice!alice@parley PRIVMSG bob "), "the query window opens as it would live")
        #expect(await back.wait(containing: "PRIVMSG #swift :and one more") != nil)
        #expect(await back.wait(containing: "NOTICE bob :End of playback") != nil)
        try back.send("QUIT")
        #expect(await back.wait(containing: "ERROR :Closing link") != nil)

        // Without server-time, the time is in the line; with chathistory, the client pages
        // history itself and nothing is played back.
        #expect(try await world.alice.run("/send #swift after lunch").status == 0)
        let plain = try IRCTestClient(port: port)
        #expect(try await plain.signIn("bob", password: "builder-123"))
        let stamped = try #require(await plain.wait(containing: "after lunch"))
        #expect(
            stamped.range(of: #"PRIVMSG #swift :\[20\d\d-\d\d-\d\d \d\d:\d\d UTC\] after lunch$"#, options: .regularExpression) != nil,
            "\(stamped)")
        try plain.send("QUIT")
        #expect(await plain.wait(containing: "ERROR :Closing link") != nil)

        #expect(try await world.alice.run("/send #swift for the pager").status == 0)
        let pager = try IRCTestClient(port: port)
        #expect(
            try await pager.signIn(
                "bob", password: "builder-123", capabilities: ["draft/chathistory", "batch", "server-time", "message-tags"]))
        try pager.send("PING done")
        #expect(await pager.wait(containing: "PONG parley done") != nil)
        #expect(!pager.lines.contains { $0.contains("for the pager") || $0.contains("Playing back") }, "\(pager.lines)")
    }

    @Test func playbackIsBoundedPerChatAndSaysWhereTheRestIs() async throws {
        let world = try await IRCGatewayTests.world(arguments: ["--irc-playback", "3", "--irc-playback-total", "4"])
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        try await Self.joinThenLeave(port: port)
        let script = (1...6).map { "/send #swift group \($0)" } + (1...2).map { "/msg @bob direct \($0)" }
        #expect(try await world.alice.run(script.joined(separator: "\n")).status == 0)

        let back = try IRCTestClient(port: port)
        #expect(try await back.signIn("bob", password: "builder-123"))
        #expect(await back.wait(containing: "NOTICE bob :Playing back 4 messages you missed") != nil)
        #expect(await back.wait(containing: "NOTICE bob :#swift: only the last 3 messages are played back") != nil)
        #expect(await back.wait(containing: "NOTICE bob :1 more are left out (at most 4 in all)") != nil)
        #expect(await back.wait(containing: "NOTICE bob :End of playback") != nil)
        let start = try #require(back.lines.firstIndex { $0.contains("Playing back") })
        let texts = back.lines[start...].filter { $0.contains(" PRIVMSG ") }.map { $0.components(separatedBy: "] ").last ?? $0 }
        #expect(texts == ["group 5", "group 6", "direct 1", "direct 2"])
    }

    @Test(arguments: StoreKind.all) func aUserBoundsOrTurnsOffTheirOwnPlayback(_ store: StoreKind) async throws {
        let world = try await Self.world(store)
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        // In the shell: one message of each chat, kept with the account.
        let set = try await world.bob.run("/playback 1\n/playback")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.lines.filter { $0.contains("at most 1 missed messages of each chat") }.count == 2, "\(set.lines)")
        try await Self.joinThenLeave(port: port)
        #expect(try await world.alice.run("/send #swift first\n/send #swift second").status == 0)
        let back = try IRCTestClient(port: port)
        #expect(try await back.signIn("bob", password: "builder-123"))
        #expect(await back.wait(containing: "NOTICE bob :#swift: only the last 1 messages are played back") != nil)
        #expect(await back.wait(containing: "NOTICE bob :End of playback") != nil)
        let start = try #require(back.lines.firstIndex { $0.contains("Playing back") })
        let texts = back.lines[start...].filter { $0.contains(" PRIVMSG ") }.map { $0.components(separatedBy: "] ").last ?? $0 }
        #expect(texts == ["second"])

        // From IRC, as networks keep account settings: NickServ, by message or command.
        try back.send("PRIVMSG NickServ :SET PLAYBACK OFF")
        #expect(await back.wait(containing: ":NickServ!NickServ@parley NOTICE bob :PLAYBACK is OFF") != nil)
        try back.send("NS SET PLAYBACK many")
        #expect(await back.wait(containing: "NOTICE bob :PLAYBACK takes 0 (none) to 499, OFF or DEFAULT") != nil)
        try back.send("NICKSERV REGISTER hunter2")
        #expect(await back.wait(containing: "NOTICE bob :Parley's NickServ only keeps settings") != nil)
        try back.send("QUIT")
        #expect(await back.wait(containing: "ERROR :Closing link") != nil)
        #expect(try await world.alice.run("/send #swift third").status == 0)
        let off = try IRCTestClient(port: port)
        #expect(try await off.signIn("bob", password: "builder-123"))
        try off.send("PING done")
        #expect(await off.wait(containing: "PONG parley done") != nil)
        #expect(!off.lines.contains { $0.contains("third") || $0.contains("Playing back") }, "\(off.lines)")
        let shown = try await world.bob.run("/playback")
        #expect(shown.lines.contains { $0.contains("played back nothing") }, "\(shown.lines)")

        // Back to the server's bound; a bound past the largest is refused and changes nothing.
        let reset = try await world.bob.run("/playback default\n/playback 100000")
        #expect(reset.lines.contains { $0.contains("as far as the server's bound goes") }, "\(reset.lines)")
        #expect(reset.status != 0 && reset.stderr.contains("playback takes 0 (none) to 499"), "\(reset.stderr)")
        try off.send("NS INFO")
        #expect(await off.wait(containing: "NOTICE bob :PLAYBACK is DEFAULT: at most 50 missed messages") != nil)
    }
}
