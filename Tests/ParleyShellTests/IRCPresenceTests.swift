import Foundation
import ParleyTesting
import Testing

/// Who IRC clients see in a channel and online: an account that goes offline stays in
/// the nick list (away, for clients with away-notify), and presence follows privacy.
@Suite(.timeLimit(.minutes(10))) struct IRCPresenceTests {
    @Test func aMemberWhoLeavesAndReturnsNeverLeavesTheNickList() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        let notifying = try IRCTestClient(port: port)
        #expect(try await notifying.signIn("bob", password: "builder-123", capabilities: ["away-notify"]))
        let plain = try IRCTestClient(port: port)
        #expect(try await plain.signIn("bob", password: "builder-123"))
        for client in [notifying, plain] {
            try client.send("JOIN #swift")
            #expect(await client.wait(containing: " 366 bob #swift ") != nil)
        }
        // alice comes, talks and goes (the shell signs in for the line and out after it).
        #expect(try await world.alice.run("/send #swift back in a minute").status == 0)
        #expect(await notifying.wait(containing: ":alice!alice@parley AWAY Offline") != nil)
        #expect(try await world.alice.run("/send #swift I am back").status == 0)
        #expect(await notifying.wait(containing: ":alice!alice@parley PRIVMSG #swift :I am back") != nil)
        #expect(await plain.wait(containing: ":alice!alice@parley PRIVMSG #swift :I am back") != nil)
        for client in [notifying, plain] {
            try client.send("NAMES #swift")
            let names = try #require(await client.wait(containing: " 353 bob = #swift :"))
            #expect(names.hasSuffix(":@alice bob"), "alice is still listed while offline")
            #expect(!client.lines.contains { $0.contains(" QUIT ") }, "no QUIT took her out of a list")
        }
    }

    @Test func monitorAndIsonDoNotShowAStrangerWhoHidesTheirActivity() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        let carol = ParleyBinary(serverURL: world.server.url)
        defer { carol.remove() }
        let made = try await carol.run(
            """
            /register carol@example.com --handle carol --password carolina-1
            /privacy last-seen hide
            """)
        #expect(made.status == 0, "\(made.stderr)")

        // bob shares no chat with carol: he may not learn when she is online.
        let bob = try IRCTestClient(port: port)
        #expect(try await bob.signIn("bob", password: "builder-123"))
        try bob.send("MONITOR + carol,alice")
        // alice's shell may still be signing out: offline now, or once it has.
        #expect(await bob.wait { $0.contains(" 731 bob ") && $0.contains("alice") } != nil, "\(bob.lines)")
        let carolOnIRC = try IRCTestClient(port: port)
        #expect(try await carolOnIRC.signIn("carol", password: "carolina-1"))
        try bob.send("ISON carol")
        #expect(await bob.wait(containing: " 303 bob ")?.hasSuffix(" 303 bob :") == true, "carol is not shown online")
        try bob.send("WHOIS carol")
        #expect(await bob.wait(containing: " 318 bob carol ") != nil)
        // alice does not hide: her coming online reaches bob, after carol's would have.
        let aliceOnIRC = try IRCTestClient(port: port)
        #expect(try await aliceOnIRC.signIn("alice", password: "wonderland-1"))
        #expect(await bob.wait(containing: " 730 bob alice!") != nil)
        #expect(!bob.lines.contains { $0.contains(" 730 bob carol") }, "\(bob.lines)")
        try bob.send("MONITOR S")
        #expect(await bob.wait(containing: " 731 bob carol") != nil, "the status list says carol is offline")

        // alice shares #swift with carol once carol joins: alice sees her online.
        try carolOnIRC.send("JOIN #swift")
        #expect(await carolOnIRC.wait(containing: " 366 carol #swift ") != nil)
        try aliceOnIRC.send("ISON carol")
        #expect(await aliceOnIRC.wait(containing: " 303 alice carol") != nil)
    }

    @Test func anIRCConnectionsSessionEndsWithIt() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        // Ten that QUIT, ten that just drop.
        for round in 0..<20 {
            let irc = try IRCTestClient(port: port)
            #expect(try await irc.signIn("bob", password: "builder-123"))
            if round % 2 == 0 {
                try irc.send("QUIT :bye")
                #expect(await irc.wait(containing: "ERROR :Closing link") != nil)
            }
        }
        let live = try IRCTestClient(port: port)
        #expect(try await live.signIn("bob", password: "builder-123"))
        // Dropped connections end as the server notices; the live one stays listed.
        #expect(
            try await IRCGatewayTests.eventually {
                let listed = try await world.bob.run("/sessions").lines.filter { $0.contains("  irc  ") }
                return listed.count == 1
            })
    }
}
