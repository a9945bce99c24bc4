import Foundation
import ParleyTesting
import Testing

/// Flood control on the IRC gateway, through the real binary: lines over the rate wait
/// their turn and are all answered, in order; a connection that goes on past the hard
/// bound is told once and closed with `Excess Flood`, while others are answered.
@Suite(.timeLimit(.minutes(10))) struct IRCFloodTests {
    @Test func linesOverTheRateWaitTheirTurnAndNoneIsDropped() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123"))
        // 40 in one write: twice the burst of 20 at the default 10 lines a second.
        try irc.send((0..<40).map { "PING n\($0)" }.joined(separator: "\r\n"))
        for number in 0..<40 {
            #expect(await irc.wait(containing: "PONG parley n\(number)") != nil, "PING \(number) was answered")
        }
        #expect(!irc.lines.contains { $0.contains("rate_limited") || $0.contains("flood") })
    }

    @Test func floodersAreToldOnceThenClosedWhileOthersAreAnswered() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        let bob = try IRCTestClient(port: port)
        #expect(try await bob.signIn("bob", password: "builder-123"))
        // One account, four connections, each writing 400 PINGs at once: past the 100
        // that may wait, and few enough bytes (5 KB) that the server has read them all
        // when it closes, so the close is a FIN and the client reads the ERROR before it.
        var flooders: [IRCTestClient] = []
        for _ in 0..<4 {
            let flooder = try IRCTestClient(port: port)
            #expect(try await flooder.signIn("alice", password: "wonderland-1"))
            flooders.append(flooder)
        }
        let flood = (0..<400).map { "PING f\($0)" }.joined(separator: "\r\n")
        for flooder in flooders { try flooder.send(flood) }
        try bob.send("PING still-here")
        #expect(await bob.wait(containing: "PONG parley still-here") != nil)
        for flooder in flooders {
            #expect(await flooder.wait(containing: "ERROR :Closing link: Excess Flood") != nil)
            let notices = flooder.lines.filter { $0.contains(" NOTICE ") && $0.contains("flood") }
            #expect(notices.count == 1, "\(notices)")
            #expect(notices.first?.contains("flood: you are sending more than 10 lines a second") == true)
            // Far from all were handled: the connection ended with the bound passed.
            #expect(flooder.lines.filter { $0.contains(" PONG ") }.count < 200)
            #expect(await flooder.wait(timeout: .seconds(120)) { _ in true } == nil, "nothing after ERROR")
        }
        try bob.send("PING after")
        #expect(await bob.wait(containing: "PONG parley after") != nil)
    }

    /// A flooder cut off is answered for every line that was stored before its ERROR:
    /// the messages in the group are exactly those it saw echoed.
    @Test func aFlooderCutOffSeesTheEchoOfEveryLineThatLanded() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let flooder = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await flooder.signIn("alice", password: "wonderland-1", capabilities: ["echo-message"]))
        #expect(await flooder.wait(containing: " 366 alice #swift ") != nil)
        try flooder.send((0..<3000).map { "PRIVMSG #swift :flood \($0)" }.joined(separator: "\r\n"))
        let error = try #require(await flooder.wait(containing: "ERROR :Closing link: Excess Flood"))
        let beforeError = flooder.lines.prefix { $0 != error }
        let echoed = Set(beforeError.compactMap { $0.firstMatch(of: /\ PRIVMSG #swift :(flood \d+)$/).map { String($0.1) } })
        #expect(!flooder.lines.drop { $0 != error }.contains { $0.contains(" PRIVMSG ") }, "nothing after the ERROR")
        let history = try await world.bob.run("/join #swift\n/history #swift 500")
        let stored = Set(history.lines.compactMap { $0.firstMatch(of: /<alice> (flood \d+)$/).map { String($0.1) } })
        #expect(!stored.isEmpty && stored == echoed, "stored \(stored.count), echoed \(echoed.count)")
    }

    @Test func anAccountsConnectionsShareOneLineRate() async throws {
        // Each connection may send 1,000 lines a second; the account, 1 over all of them.
        let world = try await IRCGatewayTests.world(arguments: ["--irc-line-rate", "1000", "--irc-account-line-rate", "1"])
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        let first = try IRCTestClient(port: port)
        #expect(try await first.signIn("alice", password: "wonderland-1"))
        let second = try IRCTestClient(port: port)
        #expect(try await second.signIn("alice", password: "wonderland-1"))
        // 80 lines: nothing for the connection, past the account's burst of 2.
        let began = ContinuousClock.now
        try first.send((0..<80).map { "PING a\($0)" }.joined(separator: "\r\n"))
        let notice = await first.wait { $0.contains(" NOTICE ") && $0.contains("flood") }
        #expect(notice?.contains("(1 over all your connections)") == true, "\(String(describing: notice))")
        try second.send("PING b")
        // More from the first: past the 100 that may wait, it is closed.
        try first.send((80..<120).map { "PING a\($0)" }.joined(separator: "\r\n"))
        #expect(await first.wait(containing: "ERROR :Closing link: Excess Flood") != nil)
        // At most the burst and one a second: however long a loaded machine took.
        let seconds = Int((ContinuousClock.now - began).components.seconds)
        #expect(first.lines.filter { $0.contains(" PONG ") }.count <= 2 + seconds + 1, "in \(seconds) s")
        // The second connection's line waited for the account, and was answered.
        #expect(await second.wait(containing: "PONG parley b") != nil)
        // Another account's lines pass as they come.
        let bob = try IRCTestClient(port: port)
        #expect(try await bob.signIn("bob", password: "builder-123"))
        try bob.send((0..<20).map { "PING c\($0)" }.joined(separator: "\r\n"))
        #expect(await bob.wait(containing: "PONG parley c19") != nil)
        #expect(!bob.lines.contains { $0.contains("flood") })
    }

    @Test func aClientThatDoesNotReadIsClosedPastItsSendQueue() async throws {
        let world = try await IRCGatewayTests.world(arguments: ["--irc-sendq-kib", "16"])
        defer { world.remove() }
        let stalled = try IRCTestClient(port: try #require(world.server.ircPort), receiveBuffer: 4096)
        #expect(try await stalled.signIn("bob", password: "builder-123"))
        try stalled.send("JOIN #swift")
        #expect(await stalled.wait(containing: " 366 bob #swift ") != nil)
        // bob reads nothing more while alice posts some 6 MB: more than the kernel's
        // buffers and his 16 KiB send queue hold.
        let long = String(repeating: "x", count: 3_900)
        // From a file: the shell echoes every line, more than a pipe holds while the
        // test would still be writing the script.
        let script = world.folder.appendingPathComponent("posts.parley")
        try ((0..<1_500).map { "/send #swift \($0) \(long)" } + ["/send #swift the end"]).joined(separator: "\n").write(
            to: script, atomically: true, encoding: .utf8)
        let posted = try await world.alice.run(arguments: ["run", script.path])
        #expect(posted.status == 0, "\(posted.stderr.prefix(500))")
        // What he reads now stops short: the server closed his connection.
        #expect(await stalled.wait(containing: "the end") == nil)
        #expect(stalled.lines.filter { $0.contains(" PRIVMSG #swift :") }.count < 1_500 * 10)
        // The server is fine, and says so to the next client.
        let next = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await next.signIn("bob", password: "builder-123"))
    }
}
