import Foundation
import ParleyTesting
import Testing

/// Threads on IRC, on both stores, through the binary: a thread started in the shell
/// reads in the channel with its marker (a plain client) or as a reply to its root (a
/// client with message-tags); a reply from IRC goes into the thread; the thread's own
/// channel (`#ops/1`) is joined with its messages so far, takes lines into the thread,
/// holds the thread's lines while joined, and pages by CHATHISTORY.
@Suite(.timeLimit(.minutes(10))) struct IRCThreadTests {
    @Test(arguments: StoreKind.all) func aThreadReadsInTheChannelAndInAChannelOfItsOwn(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice", "bob"], store: store)
        defer { world.remove() }
        let made = try await world["alice"].run(
            "/register alice@example.com --handle alice --password wonderland-1\n/create #ops\ndeploy friday?")
        #expect(made.status == 0, "\(made.stderr)")
        let joined = try await world["bob"].run("/register bob@example.com --handle bob --password builder-123\n/join #ops")
        #expect(joined.status == 0, "\(joined.stderr)")
        let plain = try await world.irc("bob", "builder-123", capabilities: ["server-time"], in: "#ops")
        let capable = try await world.irc(
            "bob", "builder-123", capabilities: ["message-tags", "echo-message", "batch", "draft/chathistory", "server-time"], in: "#ops")

        let started = try await world["alice"].run("/thread #ops 1 deploy friday\nyes after lunch")
        #expect(started.status == 0 && started.stdout.contains("#ops/1 <alice> yes after lunch"), "\(started.stdout)\(started.stderr)")
        #expect(await plain.wait(containing: "PRIVMSG #ops :[#ops/1 \"deploy friday\"] yes after lunch") != nil)
        let tagged = try #require(await capable.wait(containing: "PRIVMSG #ops :yes after lunch"))
        let root = try #require(tagged.firstMatch(of: /\+draft\/reply=([0-9]+-1)/).map { String($0.1) })

        // A reply from IRC goes into the thread of what it answers.
        try capable.send("@+draft/reply=\(root) PRIVMSG #ops :from irc")
        #expect(await capable.wait(containing: "PRIVMSG #ops :from irc") != nil)
        // (bob's other client reads his own line as written.)
        #expect(await plain.wait(containing: ":bob!bob@parley PRIVMSG #ops :from irc") != nil)

        // The thread's channel: its topic, its names, what it said so far.
        try plain.send("JOIN #ops/1")
        #expect(await plain.wait(containing: ":bob!bob@parley JOIN #ops/1") != nil)
        #expect(await plain.wait(containing: " 332 bob #ops/1 :deploy friday — alice: \"deploy friday?\"") != nil)
        #expect(await plain.wait(containing: " 366 bob #ops/1 ") != nil)
        #expect(await plain.wait(containing: "PRIVMSG #ops/1 :deploy friday?") != nil)
        #expect(await plain.wait(containing: "PRIVMSG #ops/1 :yes after lunch") != nil)
        #expect(await plain.wait(containing: "PRIVMSG #ops/1 :from irc") != nil)
        // What is said there goes into the thread.
        try plain.send("PRIVMSG #ops/1 :said in the thread's channel")
        let relayed = try #require(await capable.wait(containing: "PRIVMSG #ops :said in the thread's channel"))
        #expect(relayed.contains("+draft/reply=\(root)"), "\(relayed)")
        // While joined, the thread's lines read there, not in #ops.
        #expect(try await world["alice"].run("/send #ops/1 second thoughts").status == 0)
        #expect(await plain.wait(containing: ":alice!alice@parley PRIVMSG #ops/1 :second thoughts") != nil)
        #expect(!plain.lines.contains { $0.contains("PRIVMSG #ops :[#ops/1 \"deploy friday\"] second thoughts") }, "\(plain.lines)")
        // Renamed in the shell: the thread's channel takes the title as its topic.
        #expect(try await world["alice"].run("/thread #ops 1 deploy on friday").status == 0)
        #expect(await plain.wait(containing: ":alice!alice@parley TOPIC #ops/1 :deploy on friday") != nil)

        // CHATHISTORY pages the thread alone.
        try capable.send("CHATHISTORY LATEST #ops/1 * 10")
        let start = try #require(await capable.wait(containing: " chathistory #ops/1"))
        let batch = try #require(start.split(separator: " ").first { $0.hasPrefix("+") }).dropFirst()
        let end = try #require(await capable.wait(containing: "BATCH -\(batch)"))
        let paged = capable.lines.drop { $0 != start }.prefix { $0 != end }.filter { $0.contains(" PRIVMSG ") }
        #expect(paged.count == 4 && paged.allSatisfy { $0.contains("PRIVMSG #ops/1 :") }, "\(paged)")
        #expect(paged.first?.hasSuffix(":yes after lunch") == true, "the root is not in the thread's page: \(paged)")

        // The shell reads the same thread.
        let thread = try await world["alice"].run("/history #ops/1")
        for text in ["yes after lunch", "<bob> from irc", "<bob> said in the thread's channel", "second thoughts"] {
            #expect(thread.stdout.contains(text), "\(thread.stdout)")
        }
        let main = try await world["alice"].run("/history #ops")
        #expect(
            main.stdout.contains("↳ 4 replies in \"deploy on friday\" (thread 1)") && !main.stdout.contains("from irc"), "\(main.stdout)")

        // PART leaves the thread's channel, not the group: its lines are in #ops again.
        try plain.send("PART #ops/1")
        #expect(await plain.wait(containing: ":bob!bob@parley PART #ops/1") != nil)
        #expect(try await world["alice"].run("/send #ops/1 back in the channel").status == 0)
        #expect(await plain.wait(containing: "PRIVMSG #ops :[#ops/1 \"deploy on friday\"] back in the channel") != nil)
    }
}
