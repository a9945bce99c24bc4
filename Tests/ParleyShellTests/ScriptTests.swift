import Foundation
import ParleyShell
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct ScriptTests {
    @Test(arguments: ParleyBinary.Mode.allCases) func accountCommands(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let result = try await parley.run(
            """
            /register alice@example.com --handle alice --name "Alice Liddell" --password-env PW
            /whoami
            /profile --name "Alice L."
            /profile
            /passwd --current-env PW --new new-password
            /logout
            /login @alice --password new-password
            /login alice@example.com --password new-password
            /logout
            /register bob@example.com --password secret-bob
            /users ali
            /whois @alice
            """, environment: ["PW": "first-password"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.lines.prefix(11) == [
                "Welcome, @alice Alice Liddell <alice@example.com>",
                "@alice Alice Liddell <alice@example.com>",
                "@alice Alice L. <alice@example.com>",
                "@alice Alice L. <alice@example.com>",
                "Password changed; your other sessions are signed out",
                "Signed out @alice",
                "Signed in as @alice Alice L. <alice@example.com>",
                "Signed in as @alice Alice L. <alice@example.com>",
                "Signed out @alice",
                "Welcome, @bob bob <bob@example.com>",
                "@alice Alice L.",
            ])
        #expect(result.stdout.contains("@alice Alice L. — joined "))
        // The session is saved in the data folder: the next run is still signed in.
        let again = try await parley.run("/whoami\n")
        #expect(again.lines == ["@bob bob <bob@example.com>"])
        let attributes = try FileManager.default.attributesOfItem(atPath: parley.sessionFolder.appendingPathComponent("session").path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }

    @Test(arguments: ParleyBinary.Mode.allCases) func directAndGroupMessaging(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let result = try await parley.run(
            aliceAndBob + """

                /msg @alice hi alice
                /query @alice
                a line without a slash goes to the current chat
                //slash at the start
                /join #swift
                /send #swift <<EOF
                line one
                line two
                EOF
                /switch #swift
                /send hello swift
                /history #swift
                /history @alice 1
                /history #swift 1 --before 2
                /chats
                /groups
                /search swift
                /read #swift
                /seen #swift 1
                /online #swift
                /members
                /status
                """)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.lines.map { $0.replacingOccurrences(of: #"\[\d\d:\d\d\]"#, with: "[t]", options: .regularExpression) }
        #expect(
            lines == [
                "Welcome, @alice Alice Liddell <alice@example.com>",
                "Created public group #swift; you are its owner",
                "Signed out @alice",
                "Welcome, @bob bob <bob@example.com>",
                "[t] @alice <bob> hi alice",
                "Now talking with @alice",
                "[t] @alice <bob> a line without a slash goes to the current chat",
                "[t] @alice <bob> /slash at the start",
                "Joined #swift",
                "[t] #swift <bob> line one",
                "                     line two",
                "Now in #swift",
                "[t] #swift <bob> hello swift",
                "1. [t] #swift <bob> line one",
                "                        line two",
                "2. [t] #swift <bob> hello swift",
                "3. [t] @alice <bob> /slash at the start",
                "1. [t] #swift <bob> line one",
                "                        line two",
                "#swift [t] <bob> hello swift",
                "@alice [t] <bob> /slash at the start",
                "#swift — Swift on Linux",
                "2. [t] #swift <bob> hello swift",
                "#swift read up to 2",
                "Message 1 not seen yet",
                "#swift: 1 online",
                "@bob (here)",
                "#swift: 2 members",
                "@alice Alice Liddell (owner)",
                "@bob bob",
                "Mode: \(parley.serverURL.map { "client of \($0)" } ?? "embedded (SQLite in the data folder)")",
                "Data: \(parley.sessionFolder.path)",
                "Signed in as @bob bob <bob@example.com>",
                "Unread: 0",
                "Current chat: #swift",
            ])
    }

    @Test(arguments: ParleyBinary.Mode.allCases) func groupManagementAndInvites(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let setup = try await parley.run(
            """
            /register carol@example.com --handle carol --password secret-carol
            /register dave@example.com --handle dave --password secret-dave
            """, arguments: ["--keep-going"])
        #expect(setup.stderr.contains("already_signed_in"))
        let result = try await parley.run(
            """
            /logout
            /register dave@example.com --handle dave --password secret-dave
            /logout
            /login @carol --password secret-carol
            /create #club The Club --private
            /invite @dave
            /invite --link #club --uses 2 --expires 2h
            /members #club
            /op @dave #club
            /deop @dave #club
            /kick @dave #club
            /members #club
            """)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.contains("Created private group #club; you are its owner"))
        #expect(result.lines.contains("Added @dave to #club"))
        #expect(result.lines.contains("@dave is now admin of #club"))
        #expect(result.lines.contains("@dave is now member of #club"))
        #expect(result.lines.contains("Removed @dave from #club"))
        let link = try #require(result.stdout.firstMatch(of: /parley:\/\/join\/([a-z2-7]{26})/))
        #expect(result.stdout.contains("(2 uses, expires "))
        let joined = try await parley.run(
            """
            /logout
            /login @dave --password secret-dave
            /join \(link.0)
            /leave #club
            /join \(link.1)
            /logout
            /login @carol --password secret-carol
            /revoke \(link.1)
            /create #open
            /logout
            /login @dave --password secret-dave
            /join #open
            /delete-chat #open
            /chats
            """)
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.lines.filter { $0 == "Joined #club" }.count == 2)
        #expect(joined.lines.contains("Left #club"))
        #expect(joined.lines.contains("Revoked \(link.1)"))
        #expect(joined.lines.contains("Deleted #open from your chats"))
        #expect(joined.lines.last == "#club (no messages)")
    }

    @Test func helpSleepAndQuit() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let result = try await parley.run("/help\n/help invite\n/sleep 10ms\n/quit\n/whoami\n")
        #expect(result.status == 0)
        #expect(result.lines.first?.hasPrefix("Commands by what they are for") == true)
        #expect(result.stdout.contains("usage: /invite @H [#G]"))
        #expect(result.stdout.contains("example: /invite --link #swift --uses 5 --expires 7d"))
        #expect(!result.stderr.contains("not_signed_in"))  // /quit stopped the script
    }

    @Test func helpFitsAScreenAndListsEveryCommandOnceByGroup() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let overview = try await parley.run("/help").lines
        #expect(overview.count <= 24, "\(overview.count) lines: \(overview)")
        #expect(overview.allSatisfy { $0.count <= 100 }, "\(overview)")
        let listed = overview.filter { $0.hasPrefix("  ") }.flatMap { $0.split(separator: " ") }.filter {
            $0.hasPrefix("/") && $0.count > 1
        }
        let everyCommand = try await parley.run(
            "/help chatting\n/help threads\n/help groups\n/help people\n/help media\n/help bots\n/help account\n/help server\n/help shell")
        #expect(everyCommand.status == 0, "\(everyCommand.stderr)")
        let described = everyCommand.lines.filter { $0.hasPrefix("  /") }.compactMap { $0.split(separator: " ").first }
        #expect(Set(listed) == Set(described) && listed.count == described.count, "each command once, in one group")
        #expect(Set(described.map { String($0.dropFirst()) }) == Set(CommandTable.all.map(\.name)), "every command is in a group")
        #expect(everyCommand.lines.contains { $0.hasPrefix("  /image") && $0.contains("send a PNG") }, "\(everyCommand.lines)")
        // A group and a command of one name: the group, and the command with its slash.
        let both = try await parley.run("/help groups\n/help /groups").lines
        #expect(both.first?.hasPrefix("groups: ") == true && both.contains("usage: /groups"), "\(both)")
    }

    @Test func everyCommandHasHelpWithUsageAndExample() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let names = [
            "register", "login", "logout", "whoami", "passwd", "profile", "users", "whois", "msg", "query", "create",
            "join", "invite", "revoke", "leave", "members", "kick", "op", "online", "send", "history", "read", "seen",
            "delete-chat", "search", "chats", "switch", "status", "help", "wait", "sleep", "quit",
        ]
        let result = try await parley.run(names.map { "/help \($0)" }.joined(separator: "\n"))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.filter { $0.hasPrefix("usage: /") }.count == names.count)
        #expect(result.lines.filter { $0.hasPrefix("  example: /") }.count == names.count)
    }

    /// A script waits for another user's message, which arrives through the server
    /// while `/wait` blocks.
    @Test(.timeLimit(.minutes(10))) func waitReturnsWhenAMatchingMessageArrives() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let server = try #require(parley.serverURL)
        let setup = try await parley.run("\(aliceAndBob)\n/join #swift\n")
        #expect(setup.status == 0, "\(setup.stderr)")

        let alice = try await ParleyBinary()
        defer { alice.remove() }
        // Alice says it until the waiting script has heard it: a message sent before
        // `/wait` began would not count, and no sleep can tell when that is.
        let heard = Shared(false)
        let sender = Thread {
            while !heard.withLock({ $0 }) {
                _ = try? alice.runBlocking(
                    "/login @alice --password secret-alice\n/send #swift build is green\n", arguments: ["--server", server])
            }
        }
        sender.start()
        let waited = try await parley.run("/wait --timeout 20 #swift green\n/history #swift 1\n")
        heard.withLock { $0 = true }
        #expect(waited.status == 0, "\(waited.stderr)")
        #expect(waited.lines.first?.contains("<alice> build is green") == true)
        #expect(waited.lines.last?.contains("<alice> build is green") == true)
    }
}
