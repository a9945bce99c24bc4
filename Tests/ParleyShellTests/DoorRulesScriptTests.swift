import Foundation
import ParleyTesting
import Testing

/// The gate through the binary, on both stores: a client can't say a message came from a
/// hook, a notice or anything but its plugin, at any door; and a range ban refuses a
/// session token and a bot token over HTTP and ends the open WebSocket, IRC connection
/// and headless bot from that range at once.
@Suite(.timeLimit(.minutes(10))) struct DoorRulesScriptTests {
    static func call(_ port: Int, _ op: String, _ body: String, token: String) async throws -> (Int, String) {
        let answer = try await RawHTTP.request(
            port: port, method: "POST", path: "/v1/api/\(op)", headers: ["Authorization": "Bearer \(token)"], body: Array(body.utf8))
        return (answer.status, answer.text)
    }

    /// Signs a raw WebSocket in and returns its session token.
    static func signIn(_ socket: SilentSocket, _ login: String, _ password: String) async throws -> String {
        try socket.sendText(#"{"id":1,"op":"sign_in","args":{"login":"\#(login)","password":"\#(password)"}}"#)
        let reply = try #require(await Self.reply(socket, id: 1))
        return try #require(reply.firstMatch(of: /"token":"([^"]+)"/).map { String($0.1) })
    }

    /// The reply frame to request `id` (events before it are passed over).
    static func reply(_ socket: SilentSocket, id: Int) async -> String? {
        while let text = await socket.readText() {
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            if object?["id"] as? Int == id, object?["ok"] != nil { return text }
        }
        return nil
    }

    static let forgedVias = ["hook:CI:Release Bot", "hook:CI", "hook: :alice", "irc notice", "Release Bot (CI hook)", "dice bot", "аlice"]

    @Test(arguments: StoreKind.all) func nobodyPostsAsAHookAndARangeBanHoldsAtEveryDoor(_ store: StoreKind) async throws {
        let world = try await ServedShells(["oscar", "alice", "bob"], store: store, arguments: ["--admin", "oscar"])
        defer { world.remove() }
        let (port, irc) = (world.server.port, try #require(world.server.ircPort))
        #expect(try await world["oscar"].run("/register oscar@example.com --handle oscar --password operator-123").status == 0)
        let made = try await world["alice"].run(
            """
            /register alice@example.com --handle alice --name "Alice Liddell" --password wonderland-1
            /create #team
            /bots new @ci --password ci-pass-1234
            /invite @ci #team
            /bots token @ci --name script
            """)
        try #require(made.status == 0, "\(made.stderr)")
        let botToken = try #require(made.stdout.firstMatch(of: /pbt_[A-Za-z0-9_-]+/).map { String($0.0) })
        #expect(try await world["bob"].run("/register bob@example.com --handle bob --password builder-123\n/join #team").status == 0)
        let (_, chats) = try await Self.call(port, "chats", "{}", token: botToken)
        let listed = try JSONSerialization.jsonObject(with: Data(chats.utf8)) as? [String: Any]
        let first = (listed?["result"] as? [[String: Any]])?.first?["chat"] as? [String: Any]
        let chat = try #require(first?["id"] as? Int, "\(chats)")

        // Forged provenance: refused over HTTP (a bot token) and the WebSocket (a session),
        // with one code; a plugin's own name is taken.
        let socket = try SilentSocket(port: port)
        let sessionToken = try await Self.signIn(socket, "@bob", "builder-123")
        for (index, via) in Self.forgedVias.enumerated() {
            let args = #"{"chat":\#(chat),"text":"v9.9.9 released","via":"\#(via)"}"#
            let (status, answer) = try await Self.call(port, "send", args, token: botToken)
            #expect(status == 400 && answer.contains(#""code":"invalid_via""#), "\(via): \(status) \(answer)")
            try socket.sendText(#"{"id":\#(index + 10),"op":"send","args":\#(args)}"#)
            #expect(await Self.reply(socket, id: index + 10)?.contains(#""code":"invalid_via""#) == true, "\(via) over the WebSocket")
        }
        let (pluginStatus, _) = try await Self.call(port, "send", #"{"chat":\#(chat),"text":"rolled 4","via":"dice"}"#, token: botToken)
        #expect(pluginStatus == 200)
        // IRC has no way to set it: a tag that says so is a client's and changes nothing.
        let bobIRC = try IRCTestClient(port: irc)
        #expect(try await bobIRC.signIn("bob", password: "builder-123", capabilities: ["message-tags", "echo-message"]))
        try bobIRC.send("@+draft/via=hook:CI;via=hook:CI PRIVMSG #team :from irc")
        #expect(await bobIRC.wait(containing: "PRIVMSG #team :from irc") != nil)
        let history = try await world["alice"].run("/history #team 20")
        #expect(!history.stdout.contains("hook)") && !history.stdout.contains("v9.9.9"), "\(history.stdout)")
        #expect(history.stdout.contains("<ci* via dice> rolled 4") && history.stdout.contains("<bob> from irc"), "\(history.stdout)")

        // A headless bot, a shell's WebSocket and an IRC connection, all from 127.0.0.1.
        let botLog = world.folder.appendingPathComponent("bot.log")
        let bot = try ChildProcess(
            ParleyBinary.executable.path,
            [
                "bot", "plugins/echo.py", "--as", "@ci", "--token-env", "CI_TOKEN", "--data",
                world.folder.appendingPathComponent("bot").path, "--server",
                world.server.url,
            ],
            environment: ProcessInfo.processInfo.environment.merging(["PARLEY_BCRYPT_COST": "4", "CI_TOKEN": botToken]) { $1 },
            directory: ParleyBinary.repository.path, stderr: .file(botLog.path))
        defer {
            bot.terminate(SIGKILL)
            bot.waitUntilExit()
        }
        let loaded = try await OutgoingHookScriptTests.poll({ (try? String(contentsOf: botLog, encoding: .utf8)) ?? "" }) {
            $0.contains("loaded ") || $0.lowercased().contains("error")
        }
        try #require(loaded.contains("as @ci"), "\(loaded)")

        // oscar, over IRC from 127.0.0.3, bans 127.0.0.1.
        let oscar = try IRCTestClient(port: irc, from: "127.0.0.3")
        #expect(try await oscar.signIn("oscar", password: "operator-123"))
        try oscar.send("OPER oscar operator-123")
        #expect(await oscar.wait(containing: " 381 oscar ") != nil)
        try oscar.send("UBAN ADD 127.0.0.1 DURATION 1h test")
        #expect(await oscar.wait(containing: "UBAN: banned addresses in 127.0.0.1") != nil)

        // Each open connection ends at once, told why.
        #expect(await bobIRC.wait(containing: "ERROR :Closing link:")?.contains("banned") == true, "\(bobIRC.lines.suffix(3))")
        #expect(await socket.readCloseCode() == 4003)
        let ended = try await OutgoingHookScriptTests.poll({ (try? String(contentsOf: botLog, encoding: .utf8)) ?? "" }) {
            $0.contains("banned")
        }
        #expect(ended.contains("banned"), "\(ended)")
        // Tokens over HTTP from the range: the session's and the bot's, the API and media.
        for token in [sessionToken, botToken] {
            let (status, answer) = try await Self.call(port, "send", #"{"chat":\#(chat),"text":"still here?"}"#, token: token)
            #expect(status == 403 && answer.contains(#""code":"server_banned""#), "\(status) \(answer)")
            let media = try await RawHTTP.request(
                port: port, method: "PUT", path: "/v1/media?kind=file", headers: ["Authorization": "Bearer \(token)"], body: Array("x".utf8)
            )
            #expect(media.status == 403 && media.text.contains("server_banned"), "\(media.status) \(media.text)")
        }
        try oscar.send("UBAN DEL 127.0.0.1")
        #expect(await oscar.wait(containing: "UBAN: lifted the ban on addresses in 127.0.0.1") != nil)
        let (after, _) = try await Self.call(port, "send", #"{"chat":\#(chat),"text":"back"}"#, token: botToken)
        #expect(after == 200)
        #expect(!(try await world["alice"].run("/history #team 20").stdout.contains("still here?")), "nothing was posted while banned")
    }

    /// A WebSocket client that writes far more sends than its rate at once is cut off
    /// (4029), and every send that landed was answered before the close: it knows which.
    @Test(arguments: StoreKind.all) func aWebSocketFlooderCutOffHadAReplyForEverySendThatLanded(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice"], store: store, arguments: ["--rate-limit", "20", "--account-rate-limit", "20"])
        defer { world.remove() }
        #expect(
            try await world["alice"].run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        let socket = try SilentSocket(port: world.server.port)
        _ = try await Self.signIn(socket, "@alice", "wonderland-1")
        try socket.sendText(##"{"id":2,"op":"group","args":{"handle":"#team"}}"##)
        let group = try #require(await Self.reply(socket, id: 2))
        let object = try JSONSerialization.jsonObject(with: Data(group.utf8)) as? [String: Any]
        let chat = try #require((object?["result"] as? [String: Any])?["id"] as? Int, "\(group)")
        for index in 100..<700 {
            guard (try? socket.sendText(#"{"id":\#(index),"op":"send","args":{"chat":\#(chat),"text":"flood \#(index)"}}"#)) != nil
            else { break }
        }
        var answered: Set<Int> = []
        while let text = await socket.readText() {
            let reply = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
            if reply?["ok"] as? Bool == true, let id = reply?["id"] as? Int, id >= 100 { answered.insert(id) }
        }
        let history = try await world["alice"].run("/history #team 500")
        let landed = Set(history.lines.compactMap { $0.firstMatch(of: /flood (\d+)$/).flatMap { Int($0.1) } })
        #expect(landed.count >= 30 && landed.count < 600, "the burst lands, then the flood is cut off: \(landed.count) landed")
        #expect(landed == answered, "landed without a reply: \(landed.subtracting(answered).sorted())")
    }
}
