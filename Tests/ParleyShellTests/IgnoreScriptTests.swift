import Foundation
import ParleyTesting
import Testing

/// `/ignore` kept by the server: what the ignored user says reaches neither the shell
/// nor the IRC client of whoever ignores them.
@Suite struct IgnoreScriptTests {
    @Test func anIgnoredUserReachesNeitherTheShellNorIRC() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-ignore-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try ServeProcess.start(
            data: folder.appendingPathComponent("data"), arguments: ["--irc-port", "0", "--ping-timeout", "600"])
        defer { server.stop() }
        let alice = ParleyBinary(serverURL: server.url)
        let bob = ParleyBinary(serverURL: server.url)
        let carol = ParleyBinary(serverURL: server.url)
        defer { for shell in [alice, bob, carol] { shell.remove() } }
        #expect(try bob.run("/register bob@example.com --handle bob --password builder-123").status == 0)
        #expect(try carol.run("/register carol@example.com --handle carol --password carol-12345").status == 0)
        let set = try alice.run(
            "/register alice@example.com --handle alice --password wonderland-1\n/create #team\n/invite @bob #team\n/invite @carol #team\n/ignore @bob\n/ignores"
        )
        #expect(set.status == 0, "\(set.stderr)")
        #expect(
            set.lines.suffix(2) == ["Ignoring @bob: their messages, mentions, invites and direct messages no longer reach you", "@bob"])

        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try irc.signIn("alice", password: "wonderland-1"))
        try irc.send("JOIN #team")
        #expect(irc.wait(containing: " 366 alice #team ") != nil)
        #expect(try bob.run("/send #team @alice look at this\n/send @alice psst").status == 0)
        #expect(try carol.run("/send #team carol here").status == 0)
        // Carol's line comes after bob's two: had they reached alice, they would be first.
        var lines: [String] = []
        let carolsLine = irc.wait { line in
            lines.append(line)
            return line.contains("PRIVMSG #team :carol here")
        }
        #expect(carolsLine != nil)
        #expect(!lines.contains { $0.contains(":bob!") }, "\(lines)")
        let history = try alice.run("/history #team\n/unignore @bob\n/history #team")
        #expect(history.status == 0, "\(history.stderr)")
        #expect(history.stdout.components(separatedBy: "look at this").count == 2, "once, after /unignore: \(history.lines)")
        #expect(history.lines.contains("No longer ignoring @bob"))
    }
}
