import Foundation
import ParleyCore
import ParleyTesting
import Testing

/// `/export me` through the binary, against a server on each store: an account with one
/// of everything finds each in its file, its hooks' posts apart from what it wrote, and
/// no secret; and every column of the store that holds an account's id is accounted for.
@Suite(.timeLimit(.minutes(10))) struct AccountExportEverythingTests {
    @Test(arguments: StoreKind.all) func anExportHoldsOneOfEverythingAndNoSecret(_ store: StoreKind) async throws {
        let serve = try store.serveArguments()
        let world = try await IRCGatewayTests.world(arguments: ["--admin", "@alice"] + serve)
        defer { world.remove() }
        let (alice, bob, port) = (world.alice, world.bob, world.server.port)
        let upload = world.folder.appendingPathComponent("notes.txt")
        try Data("the quarterly notes".utf8).write(to: upload)
        #expect(try await bob.run("/join #swift\n/send #swift a message from bob").status == 0)
        let made = try await alice.run(
            """
            /send #swift hello from alice
            /react #swift 2 👍
            /file #swift \(upload.path)
            /remind #swift 2d stand-up notes
            /notify #swift mentions
            /report #swift 2 not about Swift
            /bots new @alicebot --name "Alice Bot"
            /bots token @alicebot --name deploy
            /hook new #swift --name CI
            /invite --link #swift --uses 3
            /signup-code --uses 2
            /ignore @bob
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let hookPath = try #require(
            made.lines.first { $0.contains("/v1/hooks/") }.map { String($0[$0.range(of: "/v1/hooks/")!.lowerBound...]) })
        let botToken = try #require(made.stdout.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix(BotToken.prefix) })
        #expect(try await HookScriptTests.post(port, hookPath, "build 7 passed", headers: ["Content-Type": "text/plain"]).text == "ok")
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("alice", password: "wonderland-1"))
        try irc.send("MONITOR + bob")
        #expect(await irc.wait { $0.contains(" 730 alice ") || $0.contains(" 731 alice ") } != nil, "MONITOR answered")

        let file = world.folder.appendingPathComponent("me.json")
        let exported = try await alice.run("/export me \(file.path)")
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("3 messages (and 1 posts of its hooks)"), "\(exported.stdout)")
        let data = try Data(contentsOf: file)
        let text = String(decoding: data, as: UTF8.self)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])

        // Field by field.
        let user = try #require(json["user"] as? [String: Any])
        #expect(user["handle"] as? String == "alice" && user["email"] as? String == "alice@example.com")
        #expect((json["sessions"] as? [[String: Any]])?.isEmpty == false)
        let memberships = try #require(json["memberships"] as? [[String: Any]])
        let swift = try #require(memberships.first { ($0["chat"] as? [String: Any])?["handle"] as? String == "swift" })
        #expect(swift["role"] as? String == "owner" && swift["notify"] as? String == "mentions", "\(swift)")
        #expect((json["reactions"] as? [[String: Any]])?.map { $0["emoji"] as? String } == ["👍"])
        #expect((json["uploads"] as? [[String: Any]])?.count == 1)
        let texts = (json["messages"] as? [[String: Any]] ?? []).map { $0["text"] as? String ?? "" }
        #expect(
            texts.contains("before bob came") && texts.contains("hello from alice") && !texts.contains("a message from bob"), "\(texts)")
        #expect(!texts.contains { $0.contains("build 7 passed") }, "a hook's post is not a message she wrote")
        let posts = try #require(json["hook_posts"] as? [[String: Any]])
        #expect(posts.map { $0["text"] as? String } == ["build 7 passed"])
        let records = try #require(json["records"] as? [String: Any])
        #expect((records["reminders"] as? [[String: Any]])?.map { $0["text"] as? String } == ["stand-up notes"])
        let report = try #require((records["reports_filed"] as? [[String: Any]])?.first)
        #expect(report["reason"] as? String == "not about Swift" && report["text"] as? String == "a message from bob")
        #expect((records["hooks"] as? [[String: Any]])?.map { $0["name"] as? String } == ["CI"])
        #expect(records["watches"] as? [String] == ["bob"])
        #expect((records["invites"] as? [[String: Any]])?.map { $0["uses_left"] as? Int } == [3])
        #expect((records["signup_codes"] as? [[String: Any]])?.map { $0["uses_left"] as? Int } == [2])
        #expect((json["ignores"] as? [[String: Any]])?.map { $0["handle"] as? String } == ["bob"])
        let bot = try #require((json["bots"] as? [[String: Any]])?.first)
        #expect((bot["user"] as? [String: Any])?["handle"] as? String == "alicebot")
        #expect((bot["tokens"] as? [[String: Any]])?.map { $0["name"] as? String } == ["deploy"])
        #expect(json["suspension"] == nil)

        // No secret: not the bot's token, not the hook's, no password hash.
        #expect(!text.contains(String(botToken)) && !text.contains(String(hookPath.dropFirst("/v1/hooks/".count))))
        #expect(!text.contains("$2") && !text.lowercased().contains("password"))

        // Every column that holds an account's id is in the export's coverage.
        let columns = try Self.userColumns(store, folder: world.folder, serve: serve)
        #expect(columns.contains("message.sender_id") && columns.contains("member.user_id"), "the walk found the tables: \(columns)")
        let missing = columns.subtracting(AccountExport.coverage.keys)
        #expect(missing.isEmpty, "columns holding an account's id that the export does not account for: \(missing.sorted())")
    }

    /// Columns named for an account (`…user…`, `sender`, `owner`, `reporter`, `watcher`,
    /// `actor`, `…_by`, `by_handle`) or referencing the accounts' table, as `table.column`.
    static func userColumns(_ store: StoreKind, folder: URL, serve: [String]) throws -> Set<String> {
        let pattern = "(user|sender|owner|reporter|watcher|actor|_by$|by_handle$)"
        let output: String
        switch store {
        case .sqlite:
            let script = """
                import re, sqlite3, sys
                db = sqlite3.connect(sys.argv[1])
                for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"):
                    named = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")') if re.search(sys.argv[2], r[1])]
                    referencing = [r[3] for r in db.execute(f'PRAGMA foreign_key_list("{table}")') if r[2] == 'user']
                    for column in sorted(set(named + referencing)):
                        print(f"{table}.{column}")
                """
            let python = try ChildProcess(
                "/usr/bin/env", ["python3", "-c", script, folder.appendingPathComponent("data/parley.sqlite").path, pattern], stdout: .pipe)
            output = String(decoding: python.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            python.waitUntilExit()
        case .postgres:
            let database = try #require(serve.last)
            let query = """
                SELECT table_name || '.' || column_name FROM information_schema.columns
                WHERE table_schema = 'public' AND column_name ~ '\(pattern)'
                UNION
                SELECT k.table_name || '.' || k.column_name FROM information_schema.referential_constraints r
                JOIN information_schema.key_column_usage k ON k.constraint_name = r.constraint_name
                JOIN information_schema.constraint_column_usage u ON u.constraint_name = r.unique_constraint_name
                WHERE u.table_name = 'users'
                """
            output = try TestPostgres.shared().tool("psql", [database, "-At", "-c", query])
        }
        // The accounts' table is `user` in SQLite and `users` in PostgreSQL; its own id too.
        let found = output.split(separator: "\n").map { $0.hasPrefix("users.") ? "user." + $0.dropFirst(6) : String($0) }
        return Set(found + ["user.id"])
    }
}
