import Foundation
import ParleyTesting
import Testing

/// The server operators' tools through the binary: a suspension ends the account's shell
/// and IRC connection with the same reason and refuses it until reinstated; a banned
/// address range can neither register nor sign in while other addresses can; a
/// redaction is seen going by every client; the audit log has it all.
@Suite(.timeLimit(.minutes(10))) struct OperatorScriptTests {
    @Test(arguments: StoreKind.all) func aSuspendedAccountsShellAndIRCEndWithTheReason(_ store: StoreKind) async throws {
        let world = try await ServedShells(["oscar", "bob"], store: store, arguments: ["--admin", "oscar"])
        defer { world.remove() }
        #expect(try await world["oscar"].run("/register oscar@example.com --handle oscar --password operator-123").status == 0)
        #expect(try await world["bob"].run("/register bob@example.com --handle bob --password builder-123\n/create #team").status == 0)
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123"))
        #expect(await irc.wait(containing: " 366 bob #team ") != nil)
        let shell = try world["bob"].converse(keepGoing: true)
        defer { shell.finish() }
        try await shell.send("/whoami")
        #expect(try await shell.waitForLine(containing: "@bob") != nil)

        let done = try await world["oscar"].run("/suspend @bob posting links in every group")
        #expect(done.lines == ["Suspended @bob: posting links in every group (its sessions ended)"], "\(done.stderr)")
        let reason = "@bob is suspended by the server's operators: posting links in every group"
        #expect(await irc.wait(containing: "ERROR :Closing link: \(reason)") != nil)
        #expect(try await shell.waitForLine(containing: reason)?.contains("/login") == false, "no hint to sign in again")
        try await shell.send("/login @bob --password builder-123")
        #expect(try await shell.waitForLine(containing: "error:") == "-:2: error: account_suspended: \(reason)")
        #expect(try await !IRCTestClient(port: try #require(world.server.ircPort)).signIn("bob", password: "builder-123"))

        let lifted = try await world["oscar"].run("/reinstate @bob\n/audit @oscar")
        #expect(lifted.status == 0, "\(lifted.stderr)")
        #expect(lifted.lines.first == "Reinstated @bob")
        #expect(lifted.lines.contains { $0.contains("@oscar suspend @bob: posting links in every group") }, "\(lifted.lines)")
        #expect(lifted.lines.contains { $0.contains("@oscar reinstate @bob") })
        try await shell.send("/login @bob --password builder-123")
        #expect(try await shell.waitForLine(containing: "Signed in as @bob") != nil)
        // Not one of the operators: refused, nothing changed.
        let refused = try await world["bob"].run("/suspend @oscar coup")
        #expect(refused.status != 0 && refused.stderr.contains("forbidden: only the server's operators suspend accounts"))
    }

    @Test(arguments: StoreKind.all) func aBannedAddressRangeCanNeitherRegisterNorSignIn(_ store: StoreKind) async throws {
        let world = try await ServedShells(
            ["oscar", "carol", "dave"], store: store, arguments: ["--admin", "oscar", "--trusted-proxy", "127.0.0.3"])
        defer { world.remove() }
        #expect(try await world["oscar"].run("/register oscar@example.com --handle oscar --password operator-123").status == 0)
        #expect(try await world["carol"].run("/register carol@example.com --handle carol --password carol-12345").status == 0)
        let ban = try await world["oscar"].run("/ban-server 203.0.113.0/24 spam wave\n/ban-server 127.0.0.2 --for 1d\n/server-bans")
        #expect(ban.status == 0, "\(ban.stderr)")
        #expect(ban.lines.first == "Banned addresses in 203.0.113.0/24: spam wave")

        // Through a trusted proxy, for a client in the range: no account, no sign-in.
        let register = #"{"id": 1, "op": "register", "args": {"email": "eve@example.com", "password": "password-eve", "handle": "eve"}}"#
        let banned = try SilentSocket(port: world.server.port, from: "127.0.0.3", headers: ["X-Forwarded-For: 203.0.113.9"])
        try banned.sendText(register)
        let refusal = try #require(await banned.readText())
        #expect(refusal.contains(#""code":"server_banned""#) && refusal.contains("your address is banned from this server: spam wave"))
        let signIn = #"{"id": 2, "op": "sign_in", "args": {"login": "@carol", "password": "carol-12345"}}"#
        try banned.sendText(signIn)
        #expect(await banned.readText()?.contains(#""code":"server_banned""#) == true)
        // Over IRC from a banned loopback address.
        #expect(
            try await !IRCTestClient(port: try #require(world.server.ircPort), from: "127.0.0.2").signIn("carol", password: "carol-12345"))

        // Everyone else comes in: another client of the proxy, and the shells.
        let other = try SilentSocket(port: world.server.port, from: "127.0.0.3", headers: ["X-Forwarded-For: 198.51.100.4"])
        try other.sendText(register)
        #expect(await other.readText()?.contains(#""ok":true"#) == true)
        #expect(try await world["dave"].run("/register dave@example.com --handle dave --password dave-123456").status == 0)
        #expect(try await world["carol"].run("/logout\n/login @carol --password carol-12345").status == 0)
        #expect(try await IRCTestClient(port: try #require(world.server.ircPort)).signIn("carol", password: "carol-12345"))
        let lifted = try await world["oscar"].run("/unban-server 203.0.113.0/24\n/server-bans")
        #expect(lifted.lines.first == "Lifted the ban on addresses in 203.0.113.0/24: spam wave")
        #expect(lifted.lines.count == 2 && lifted.lines[1].contains("addresses in 127.0.0.2 until"), "\(lifted.lines)")
        let again = try SilentSocket(port: world.server.port, from: "127.0.0.3", headers: ["X-Forwarded-For: 203.0.113.9"])
        try again.sendText(register.replacingOccurrences(of: "eve", with: "eve2"))
        #expect(await again.readText()?.contains(#""ok":true"#) == true)
    }

    @Test(arguments: StoreKind.all) func aRedactionIsSeenGoingByEveryClient(_ store: StoreKind) async throws {
        let world = try await ServedShells(["oscar", "alice", "spammer"], store: store, arguments: ["--admin", "oscar"])
        defer { world.remove() }
        #expect(try await world["oscar"].run("/register oscar@example.com --handle oscar --password operator-123").status == 0)
        #expect(
            try await world["alice"].run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("alice", password: "wonderland-1", capabilities: ["draft/message-redaction", "message-tags"]))
        #expect(await irc.wait(containing: " 366 alice #team ") != nil)
        let spam = try await world["spammer"].run(
            "/register spam@example.com --handle spammer --password spammer-123\n/join #team\n/send #team buy now\n/send #team cheap watches\n/send @alice psst alice"
        )
        #expect(spam.status == 0, "\(spam.stderr)")
        #expect(await irc.wait(containing: "PRIVMSG alice :psst alice") != nil)
        let done = try await world["oscar"].run("/redact @spammer --since 1h spam")
        #expect(done.lines == ["Deleted 3 messages of @spammer"], "\(done.stderr)")
        for target in ["#team", "#team", "alice"] {
            #expect(await irc.wait { $0.contains(":oscar!oscar@parley REDACT \(target) ") && $0.hasSuffix(" spam") } != nil)
        }
        let history = try await world["alice"].run("/history #team")
        #expect(!history.stdout.contains("buy now") && !history.stdout.contains("cheap watches"), "\(history.lines)")
    }
}

/// IRC's operator commands map onto the operators' tools: after OPER, KILL ends an
/// account's connections (shell and IRC), WALLOPS reaches +w clients, UBAN
/// bans an address range; without OPER each is refused with 481.
@Suite(.timeLimit(.minutes(10))) struct IRCOperatorTests {
    @Test(arguments: StoreKind.all) func operCommandsKillWallopsAndUban(_ store: StoreKind) async throws {
        let world = try await ServedShells(["oscar", "bob", "carol"], store: store, arguments: ["--admin", "oscar"])
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        #expect(try await world["oscar"].run("/register oscar@example.com --handle oscar --password operator-123").status == 0)
        #expect(try await world["bob"].run("/register bob@example.com --handle bob --password builder-123").status == 0)
        #expect(try await world["carol"].run("/register carol@example.com --handle carol --password carol-12345").status == 0)
        let bobIRC = try IRCTestClient(port: port)
        #expect(try await bobIRC.signIn("bob", password: "builder-123"))
        let carolIRC = try IRCTestClient(port: port)
        #expect(try await carolIRC.signIn("carol", password: "carol-12345"))
        try carolIRC.send("MODE carol +w")
        #expect(await carolIRC.wait(containing: "MODE carol +w") != nil)
        let carolShell = try world["carol"].converse(keepGoing: true)
        defer { carolShell.finish() }
        try await carolShell.send("/whoami")
        #expect(try await carolShell.waitForLine(containing: "@carol") != nil)
        let bobShell = try world["bob"].converse(keepGoing: true)
        defer { bobShell.finish() }
        try await bobShell.send("/whoami")
        #expect(try await bobShell.waitForLine(containing: "@bob") != nil)

        // Not yet an operator: refused, nothing done.
        try bobIRC.send("KILL carol :no")
        #expect(await bobIRC.wait(containing: " 481 bob ") != nil)
        try bobIRC.send("WALLOPS :hello")
        #expect(await bobIRC.wait(containing: " 481 bob ") != nil)
        try bobIRC.send("OPER bob builder-123")
        #expect(await bobIRC.wait(containing: " 491 bob ") != nil, "not one of the server's admins")

        // bob's IRC connection proves oscar's credentials: it acts as that operator.
        try bobIRC.send("OPER oscar operator-123")
        #expect(await bobIRC.wait(containing: " 381 bob ") != nil)
        try bobIRC.send("WALLOPS :maintenance at noon")
        #expect(await carolIRC.wait(containing: ":bob!bob@parley WALLOPS :maintenance at noon") != nil)
        try bobIRC.send("UBAN ADD 127.0.0.2 DURATION 1d botnet")
        #expect(await bobIRC.wait(containing: "NOTICE bob :UBAN: banned addresses in 127.0.0.2 until ") != nil)
        #expect(try await !IRCTestClient(port: port, from: "127.0.0.2").signIn("carol", password: "carol-12345"))
        try bobIRC.send("KILL carol :cool off")
        let reason = "disconnected by the server's operator @oscar: cool off"
        #expect(await carolIRC.wait(containing: "ERROR :Closing link: \(reason)") != nil)
        #expect(try await carolShell.waitForLine(containing: reason)?.contains("/login to sign in again") == true)
        // A KILL is no suspension: carol comes straight back.
        #expect(try await IRCTestClient(port: port).signIn("carol", password: "carol-12345"))
        try bobIRC.send("UBAN LIST")
        #expect(await bobIRC.wait(containing: "NOTICE bob :UBAN 1: addresses in 127.0.0.2 until ") != nil)
        try bobIRC.send("UBAN DEL 127.0.0.2")
        #expect(await bobIRC.wait(containing: "NOTICE bob :UBAN: lifted the ban on addresses in 127.0.0.2") != nil)
        #expect(try await IRCTestClient(port: port, from: "127.0.0.2").signIn("carol", password: "carol-12345"))
        // Giving +o up gives the rights up.
        try bobIRC.send("MODE bob -o")
        #expect(await bobIRC.wait(containing: "MODE bob -o") != nil)
        try bobIRC.send("KILL carol")
        #expect(await bobIRC.wait(containing: " 481 bob ") != nil)

        let audit = try await world["oscar"].run("/audit 10")
        #expect(audit.status == 0, "\(audit.stderr)")
        for action in [
            "wallops everyone — as @bob: maintenance at noon", "server_ban 127.0.0.2", "disconnect @carol: cool off",
            "server_unban 127.0.0.2",
        ] {
            #expect(audit.lines.contains { $0.contains("@oscar \(action)") }, "\(action): \(audit.lines)")
        }

        // The same two from a shell: /wallops reaches carol's shell on a terminal, /kill ends it.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-wallops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let terminal = TmuxSession()
        defer { terminal.stop() }
        try await terminal.start("NO_COLOR=1 \(ParleyBinary.executable.path) --data \(folder.path) --server \(world.server.url)")
        _ = try await terminal.waitFor("parley>")
        _ = try await terminal.firstCommand("/login @carol --password carol-12345", until: "carol>")
        let notice = try await world["oscar"].run("/wallops back in five")
        #expect(notice.lines == ["Sent to everyone connected"], "\(notice.stderr)")
        _ = try await terminal.waitFor("! operators' notice from @oscar: back in five")
        let kill = try await world["oscar"].run("/kill @carol enough")
        #expect(kill.lines == ["Disconnected @carol (it may sign in again)"], "\(kill.stderr)")
        _ = try await terminal.waitFor("enough; /login to sign in again")
        let refused = try await world["bob"].run("/wallops hi all")
        #expect(
            refused.status != 0 && refused.stderr.contains("forbidden: only the server's operators send notices to everyone"),
            "\(refused.stderr)")
        #expect(try await world["oscar"].run("/audit 2").lines.contains { $0.contains("@oscar disconnect @carol: enough") })
    }
}

/// `/delete-account` through the binary: the shell and IRC connection end, the account
/// can't sign in, its handle can't be taken, and its words stay as from "Deleted user".
@Suite(.timeLimit(.minutes(10))) struct DeleteAccountScriptTests {
    @Test(arguments: StoreKind.all) func aDeletedAccountIsGoneAndItsHandleHeld(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice", "bob", "carol"], store: store, arguments: ["--handle-hold-days", "30"])
        defer { world.remove() }
        #expect(
            try await world["alice"].run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        #expect(try await world["bob"].run("/register bob@example.com --handle bob --password builder-123\n/join #team").status == 0)
        #expect(try await world["alice"].run("/send #team hello from alice").status == 0)
        let irc = try IRCTestClient(port: try #require(world.server.ircPort))
        #expect(try await irc.signIn("alice", password: "wonderland-1"))

        let wrong = try await world["alice"].run("/delete-account --password nope")
        #expect(wrong.status != 0 && wrong.stderr.contains("bad_credentials: the password is wrong; the account was not deleted"))
        let deleted = try await world["alice"].run("/delete-account --password wonderland-1")
        #expect(deleted.lines.first?.hasPrefix("Deleted @alice: your profile, sessions and files are gone") == true, "\(deleted.stderr)")
        #expect(await irc.wait(containing: "ERROR :Closing link: this account was deleted") != nil)
        let back = try await world["alice"].run("/login @alice --password wonderland-1")
        #expect(back.status != 0 && back.stderr.contains("bad_credentials"))
        let taken = try await world["carol"].run("/register carol@example.com --handle alice --password carol-12345")
        #expect(
            taken.status != 0 && taken.stderr.contains("handle_taken: the handle @alice belonged to a deleted account"), "\(taken.stderr)")
        let seen = try await world["bob"].run("/history #team\n/members #team")
        #expect(seen.stdout.contains("<deleted-") && seen.stdout.contains("hello from alice"), "\(seen.lines)")
        #expect(!seen.stdout.contains("@alice"), "\(seen.lines)")
    }
}

/// `/export me FILE` through the binary: one JSON file with exactly the account's data,
/// and the files it uploaded beside it.
@Suite(.timeLimit(.minutes(10))) struct AccountExportScriptTests {
    @Test(arguments: StoreKind.all) func anExportHoldsTheAccountsDataAndFiles(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice", "bob"], store: store)
        defer { world.remove() }
        let notes = world.folder.appendingPathComponent("notes.txt")
        try Data("alice's notes\n".utf8).write(to: notes)
        let made = try await world["alice"].run(
            "/register alice@example.com --handle alice --password wonderland-1\n/create #team\n/send #team hello one\n/file #team \(notes.path) my notes"
        )
        #expect(made.status == 0, "\(made.stderr)")
        #expect(
            try await world["bob"].run("/register bob@example.com --handle bob --password builder-123\n/join #team\n/send #team bob here")
                .status
                == 0)
        let file = world.folder.appendingPathComponent("alice-export.json")
        let done = try await world["alice"].run("/export me \(file.path)")
        #expect(
            done.lines.first?.hasPrefix(
                "Wrote @alice's data to \(file.path): 2 messages, 1 chats, 0 reactions, 1 sessions, 0 reminders, 0 bots, 0 hooks and 1 files"
            )
                == true,
            "\(done.lines) \(done.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        #expect((object["user"] as? [String: Any])?["email"] as? String == "alice@example.com")
        let texts = (object["messages"] as? [[String: Any]])?.compactMap { $0["text"] as? String }
        #expect(texts == ["hello one", "my notes"])
        let saved = try FileManager.default.contentsOfDirectory(atPath: file.path + "-media")
        #expect(saved.count == 1 && saved[0].hasSuffix("-notes.txt"), "\(saved)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file.path + "-media/" + saved[0])) == Data("alice's notes\n".utf8))
        let again = try await world["alice"].run("/export me \(file.path)")
        #expect(again.status != 0 && again.stderr.contains("file_exists"))
        let others = try await world["alice"].run("/export account @bob \(file.path)-bob")
        #expect(others.status != 0 && others.stderr.contains("forbidden: only the server's operators export other people's accounts"))
    }
}
