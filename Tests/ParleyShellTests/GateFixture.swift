import Foundation
import ParleyEngine
import ParleyTesting
import Testing

/// The world the rules × doors matrix runs in: a server on `store` with an operator
/// (oscar), a group's owner (alice) with #team, #open and a private #secret, a member
/// (bob), hank (an admin of #team who made its incoming and outgoing hooks) and mallory
/// (a member of #team, with a bot @mbot and its tokens), whose standing each rule changes;
/// and an embedded shell's folder where ben is a member of ann's #ea but not of #eb.
final class GateFixture {
    /// Every request a door must refuse carries this; none may land.
    static let refusedMark = "refused-probe"
    static let people = ["oscar", "alice", "bob", "hank", "mallory"]

    let world: ServedShells
    let embedded = ParleyBinary(serverURL: nil)
    var port: Int { world.server.port }
    let irc: Int
    private var endpoint: ChildProcess?
    var team = 0, open = 0, secret = 0
    var botToken = "", revokedBotToken = "", revokedSession = ""
    var hookPath = "", removedHookPath = "", secretMedia = "", bobSeq = 0

    init(store: StoreKind) async throws {
        world = try await ServedShells(
            Self.people, store: store,
            arguments: [
                "--admin", "oscar", "--hook-allow-loopback", "--max-file-mb", "1", "--max-hook-kib", "8", "--hook-rate", "2",
                "--rate-limit", "20", "--account-rate-limit", "2",
            ])
        irc = try #require(world.server.ircPort)
    }

    func remove() {
        if let endpoint {
            kill(endpoint.processIdentifier, SIGKILL)
            endpoint.waitUntilExit()
        }
        world.remove()
        embedded.remove()
    }

    /// Runs `script` in `person`'s shell; it must succeed.
    @discardableResult func run(_ person: String, _ script: String) async throws -> ParleyBinary.Result {
        let result = try await world[person].run(script)
        try #require(result.status == 0, "\(person): \(script.prefix(80)): \(result.stderr)")
        return result
    }

    func setUp() async throws {
        for person in Self.people {
            try await run(person, "/register \(person)@example.com --handle \(person) --password \(person)-pass-1")
        }
        try await run("alice", "/create #team\n/create #open\n/create #secret --private")
        try await run("bob", "/join #team\n/send #team hello from bob")
        try await run("hank", "/join #team")
        try await run("alice", "/op @hank #team")
        let mallory = try await run(
            "mallory",
            "/join #team\n/bots new @mbot --password mbot-pass-1\n/invite @mbot #team\n/bots token @mbot --name kept\n/bots token @mbot --name gone\n/bots tokens @mbot"
        )
        let secrets = mallory.lines.filter { $0.hasPrefix("  pbt_") }.map { $0.trimmingCharacters(in: .whitespaces) }
        try #require(secrets.count == 2, "\(mallory.lines)")
        (botToken, revokedBotToken) = (secrets[0], secrets[1])
        let gone = try #require(mallory.lines.last { $0.contains("  gone  ") }?.split(separator: " ").first.map(String.init))
        try await run("mallory", "/bots revoke @mbot \(gone)")

        // hank's hooks: one to post through, one revoked, one that #team's !probe calls.
        let hooks = try await run("hank", "/hook new #team --name CI\n/hook new #team --name Old")
        let urls = hooks.lines.filter { $0.contains("/v1/hooks/") }.map { String($0[$0.range(of: "/v1/hooks/")!.lowerBound...]) }
        try #require(urls.count == 2, "\(hooks.lines)")
        (hookPath, removedHookPath) = (urls[0], urls[1])
        let old = try #require(hooks.stdout.firstMatch(of: /Made hook (\d+) "Old"/).map { String($0.1) })
        try await run("hank", "/hook revoke \(old) #team")
        try await startEndpoint()

        // Ids, a message of bob's and a file in #secret, through the API and a socket.
        let alice = try SilentSocket(port: port)
        let aliceToken = try await DoorRulesScriptTests.signIn(alice, "@alice", "alice-pass-1")
        let listed = try await request(alice, id: 2, op: "chats", args: "{}")
        for item in (listed["result"] as? [[String: Any]]) ?? [] {
            guard let chat = item["chat"] as? [String: Any], let id = chat["id"] as? Int else { continue }
            switch chat["handle"] as? String {
            case "team": team = id
            case "open": open = id
            case "secret": secret = id
            default: break
            }
        }
        try #require(team != 0 && open != 0 && secret != 0, "\(listed)")
        let history = try await request(alice, id: 3, op: "history", args: #"{"chat":\#(team),"limit":20}"#)
        let page = (history["result"] as? [String: Any])?["messages"] as? [[String: Any]] ?? (history["result"] as? [[String: Any]]) ?? []
        bobSeq = try #require(page.first { ($0["text"] as? String) == "hello from bob" }?["seq"] as? Int, "\(history)")
        let uploaded = try await RawHTTP.request(
            port: port, method: "PUT", path: "/v1/media?kind=file&chat=\(secret)", headers: ["Authorization": "Bearer \(aliceToken)"],
            body: Array("secret plans".utf8))
        secretMedia = try #require(uploaded.text.firstMatch(of: /"id":"([^"]+)"/).map { String($0.1) }, "\(uploaded.text)")
        let sent = try await request(
            alice, id: 5, op: "send", args: #"{"chat":\#(secret),"text":"","media":"\#(secretMedia)","name":"plans.txt"}"#)
        try #require(sent["ok"] as? Bool == true, "\(sent)")

        // A session of mallory's, signed out: its token is revoked.
        let signedOut = try SilentSocket(port: port)
        revokedSession = try await DoorRulesScriptTests.signIn(signedOut, "@mallory", "mallory-pass-1")
        let sessions = try await request(signedOut, id: 2, op: "sessions", args: "{}")
        let current = try #require(
            ((sessions["result"] as? [[String: Any]]) ?? []).first { $0["current"] as? Bool == true }?["id"] as? String)
        _ = try await request(signedOut, id: 3, op: "revoke_session", args: #"{"id":"\#(current)"}"#)

        // The embedded shell: ann's #ea (ben a member) and #eb (ben not).
        let made = try await embedded.run(
            """
            /register ann@example.com --handle ann --password ann-pass-12
            /create #ea
            /create #eb
            /logout
            /register ben@example.com --handle ben --password ben-pass-12
            /join #ea
            """)
        try #require(made.status == 0, "\(made.stderr)")
    }

    /// Sends one request on `socket` and returns its reply as an object.
    func request(_ socket: SilentSocket, id: Int, op: String, args: String) async throws -> [String: Any] {
        try socket.sendText(#"{"id":\#(id),"op":"\#(op)","args":\#(args)}"#)
        let reply = try #require(await DoorRulesScriptTests.reply(socket, id: id), "no reply to \(op)")
        return try #require(try JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any])
    }

    /// hank's outgoing hook: every call is answered with a text that must not land while
    /// hank may not post.
    private func startEndpoint() async throws {
        let script = world.folder.appendingPathComponent("answer.py")
        try """
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers['Content-Length']))
                body = b'{"text": "\(Self.refusedMark) answer", "username": "alice", "via": "hook:CI"}'
                self.send_response(200); self.send_header('Content-Length', str(len(body))); self.end_headers()
                self.wfile.write(body)
            def log_message(self, *args): pass
        server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """.write(to: script, atomically: true, encoding: .utf8)
        let process = try ChildProcess("/usr/bin/env", ["python3", script.path], stdout: .pipe)
        endpoint = process
        let pipe = try #require(process.output)
        let port = try #require(String(decoding: pipe.availableData, as: UTF8.self).split(separator: "\n").first)
        try await run("hank", "/hook out #team --name probe --url http://127.0.0.1:\(port)/hook --trigger !probe")
    }

    /// Changes standing for `rule` before its probes, and back after.
    func enter(_ rule: GateRule) async throws {
        switch rule {
        case .suspended:
            try await run("oscar", ["mallory", "mbot", "hank"].map { "/suspend @\($0) probing the gate" }.joined(separator: "\n"))
        case .bannedAccount:
            try await run("oscar", ["mallory", "mbot", "hank"].map { "/ban-server @\($0) probing the gate" }.joined(separator: "\n"))
        case .bannedRange: try await run("oscar", "/ban-server 127.0.0.2 probing the gate")
        case .notMember: try await run("hank", "/login @hank --password hank-pass-1\n/leave #team")
        default: break
        }
    }

    func leave(_ rule: GateRule) async throws {
        switch rule {
        case .suspended: try await run("oscar", ["mallory", "mbot", "hank"].map { "/reinstate @\($0)" }.joined(separator: "\n"))
        case .bannedAccount: try await run("oscar", ["mallory", "mbot", "hank"].map { "/unban-server @\($0)" }.joined(separator: "\n"))
        case .bannedRange: try await run("oscar", "/unban-server 127.0.0.2")
        case .notMember: try await run("hank", "/join #team")
        default: break
        }
    }

    /// What the rooms hold at the end, as alice and ben read them.
    func everyHistory() async throws -> String {
        let served = try await run("alice", "/history #team 200\n/history #open 200\n/history #secret 200").stdout
        let local = try await embedded.run("/history #ea 200").stdout
        return served + local
    }
}
