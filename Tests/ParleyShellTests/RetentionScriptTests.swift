import Foundation
import ParleyTesting
import Testing

/// Retention through the binary on both stores: `parley serve --retention-days 30`
/// deletes messages older than 30 days (here made so by moving their time back in the
/// database) and nothing else, while people go on sending; a group's shorter policy set
/// with /rules is told to its IRC members.
@Suite(.timeLimit(.minutes(10))) struct RetentionScriptTests {
    @Test(arguments: StoreKind.all) func oldMessagesGoWhileSendsGoOn(_ store: StoreKind) async throws {
        let database = store == .postgres ? try TestPostgres.newDatabase() : nil
        let world = try await ServedShells(
            ["alice", "bob"],
            arguments: ["--retention-days", "30", "--retention-interval", "1"] + (database.map { ["--postgres", $0] } ?? []))
        defer { world.remove() }
        let (alice, bob) = (world["alice"], world["bob"])
        #expect(try await alice.run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        #expect(try await bob.run("/register bob@example.com --handle bob --password builder-123\n/join #team").status == 0)
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123"))
        #expect(await irc.wait(containing: " 366 bob #team ") != nil)
        let tooLong = try await alice.run("/rules #team keep=40")
        #expect(tooLong.status != 0 && tooLong.stderr.contains("invalid_argument: this server keeps messages 30 days"), "\(tooLong.stderr)")
        let rules = try await alice.run("/rules #team keep=7")
        #expect(rules.lines.last?.hasSuffix("messages kept 7 days (the server keeps them 30 days)") == true, "\(rules.lines)")
        #expect(await irc.wait(containing: "NOTICE #team :[#team now keeps messages 7 days]") != nil)
        #expect(
            try await alice.run("/rules #team keep=server").lines.last?.hasSuffix("messages kept: the server keeps them 30 days") == true)

        let script = (1...5).map { "/send #team old \($0) @bob" }.joined(separator: "\n")
        #expect(try await alice.run(script).status == 0)
        // Forty days back, in the database itself.
        let aged = "UPDATE message SET sent_at = sent_at - 3456000000 WHERE text LIKE 'old %'"
        if let database {
            _ = try TestPostgres.shared().tool("psql", [database, "-q", "-c", aged])
        } else {
            let sqlite = world.folder.appendingPathComponent("data/parley.sqlite").path
            let python = try ChildProcess(
                "/usr/bin/env",
                ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()", sqlite, aged])
            python.waitUntilExit()
            #expect(python.terminationStatus == 0)
        }
        // bob goes on sending until the sweep has been: every one of his lands.
        var sent = 0
        var history = ""
        while sent < 2000 {
            sent += 1
            #expect(try await bob.run("/send #team fresh \(sent)").status == 0)
            history = try await bob.run("/history #team 100").stdout
            if !history.contains("old ") { break }
        }
        #expect(!history.contains("old "), "the sweep ran within \(sent) sends")
        for index in 1...sent { #expect(history.contains("fresh \(index)"), "fresh \(index) kept") }
        let search = try await bob.run("/search old")
        #expect(!search.stdout.contains("old 1"), "\(search.lines)")
        #expect(try await bob.run("/mentions").stdout.contains("old") == false)
    }
}
