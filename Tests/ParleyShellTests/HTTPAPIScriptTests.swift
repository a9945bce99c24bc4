import Foundation
import ParleyTesting
import Testing

/// The HTTP API through the binary, on both stores: a bot with a token sends to a group
/// and a user, reads history and its chats, uploads and sends a file, and is refused
/// with the right statuses; a shell sees what it sent.
@Suite(.timeLimit(.minutes(10))) struct HTTPAPIScriptTests {
    static func call(_ port: Int, _ op: String, _ body: String, token: String?) async throws -> (Int, [String: Any]) {
        let headers = token.map { ["Authorization": "Bearer \($0)", "Content-Type": "application/json"] } ?? [:]
        let answer = try await RawHTTP.request(port: port, method: "POST", path: "/v1/api/\(op)", headers: headers, body: Array(body.utf8))
        return (answer.status, (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? ["raw": answer.text])
    }

    static func code(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["code"] as? String }

    @Test(arguments: StoreKind.all) func aScriptSendsReadsAndUploadsOverHTTP(_ store: StoreKind) async throws {
        let world = try await IRCGatewayTests.world(arguments: try store.serveArguments())
        defer { world.remove() }
        let (alice, port) = (world.alice, world.server.port)
        let made = try await alice.run("/bots new @ci --password ci-pass-1234\n/invite @ci #swift\n/bots token @ci --name script\n/whoami")
        #expect(made.status == 0, "\(made.stderr)")
        let token = try #require(made.stdout.firstMatch(of: /pbt_[A-Za-z0-9_-]+/).map { String($0.0) })

        let (meStatus, me) = try await Self.call(port, "me", "", token: token)
        #expect(meStatus == 200 && (me["result"] as? [String: Any])?["handle"] as? String == "ci")
        let (_, chats) = try await Self.call(port, "chats", "{}", token: token)
        let chat = try #require(((chats["result"] as? [[String: Any]])?.first?["chat"] as? [String: Any])?["id"] as? Int)
        let send = #"{"chat": \#(chat), "text": "build 123 passed", "client_id": "ci-123"}"#
        let (sent, first) = try await Self.call(port, "send", send, token: token)
        let (_, again) = try await Self.call(port, "send", send, token: token)
        let firstID = (first["result"] as? [String: Any])?["id"] as? Int
        #expect(sent == 200 && firstID != nil && firstID == (again["result"] as? [String: Any])?["id"] as? Int, "a retried send lands once")
        let (_, found) = try await Self.call(port, "user", #"{"handle": "@alice"}"#, token: token)
        let aliceID = try #require((found["result"] as? [String: Any])?["id"] as? Int)
        let (direct, _) = try await Self.call(port, "send", #"{"user": \#(aliceID), "text": "your report is ready"}"#, token: token)
        #expect(direct == 200)
        let (_, history) = try await Self.call(port, "history", #"{"chat": \#(chat), "limit": 5}"#, token: token)
        #expect((history["result"] as? [[String: Any]])?.last?["text"] as? String == "build 123 passed")

        // Names where the shell takes them: a #group, an @handle (a send starts the chat).
        let (byName, named) = try await Self.call(port, "send", ##"{"chat": "#swift", "text": "by name"}"##, token: token)
        #expect(byName == 200 && (named["result"] as? [String: Any])?["chat_id"] as? Int == chat, "\(named)")
        let (toBob, _) = try await Self.call(port, "send", #"{"chat": "@bob", "text": "hello bob"}"#, token: token)
        #expect(toBob == 200)
        let (_, withBob) = try await Self.call(port, "history", #"{"chat": "@bob", "limit": 5}"#, token: token)
        #expect((withBob["result"] as? [[String: Any]])?.last?["text"] as? String == "hello bob", "\(withBob)")
        let (_, withAlice) = try await Self.call(port, "history", #"{"chat": "@alice", "limit": 5}"#, token: token)
        #expect((withAlice["result"] as? [[String: Any]])?.last?["text"] as? String == "your report is ready", "\(withAlice)")
        for (args, code) in [
            (##"{"chat": "#nowhere", "text": "x"}"##, "unknown_group"), (#"{"chat": "@nobody", "text": "x"}"#, "unknown_user"),
            (#"{"chat": "swift", "text": "x"}"#, "invalid_argument"),
        ] {
            let (status, refused) = try await Self.call(port, "send", args, token: token)
            #expect(status >= 400 && Self.code(refused) == code, "\(args): \(refused)")
        }
        // A path or method nothing answers: a JSON refusal, not an empty page.
        for (method, path) in [("GET", "/v1/api/send"), ("GET", "/nowhere"), ("DELETE", "/v1/media")] {
            let answer = try await RawHTTP.request(port: port, method: method, path: path)
            let body = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            #expect(answer.status == 404 && body.map(Self.code) == "unknown_path", "\(method) \(path): \(answer.status) \(answer.text)")
            #expect(answer.headers["content-type"] == "application/json")
        }

        // A file: uploaded with the token, then sent by its id with its name.
        let pdf = Array("%PDF-1.4\n%%EOF\n".utf8)
        let upload = try await RawHTTP.request(
            port: port, method: "PUT", path: "/v1/media?kind=file&chat=\(chat)", headers: ["Authorization": "Bearer \(token)"], body: pdf)
        let media = try #require((try JSONSerialization.jsonObject(with: Data(upload.body)) as? [String: Any])?["id"] as? String)
        let (fileSent, _) = try await Self.call(
            port, "send", #"{"chat": \#(chat), "text": "Q3", "media": "\#(media)", "name": "report.pdf"}"#, token: token)
        #expect(fileSent == 200)

        // Refusals, each with its status; none of them posts anything.
        let (noToken, anonymous) = try await Self.call(port, "send", send, token: nil)
        #expect(noToken == 401 && Self.code(anonymous) == "not_signed_in")
        let (badToken, _) = try await Self.call(port, "send", send, token: "pbt_nope")
        #expect(badToken == 401)
        let (signIn, refused) = try await Self.call(port, "sign_in", #"{"login": "@ci", "password": "x"}"#, token: token)
        #expect(signIn == 404 && Self.code(refused) == "unknown_op")
        let (notJSON, _) = try await Self.call(port, "send", "text=hello", token: token)
        #expect(notJSON == 400)
        let (missing, _) = try await Self.call(port, "send", #"{"chat": \#(chat)}"#, token: token)
        #expect(missing == 400)
        let (elsewhere, outside) = try await Self.call(port, "history", #"{"chat": 999999}"#, token: token)
        #expect([403, 404].contains(elsewhere) && Self.code(outside) != nil)
        let big = try await RawHTTP.request(
            port: port, method: "POST", path: "/v1/api/send", headers: ["Authorization": "Bearer \(token)"],
            body: Array(#"{"chat": 1, "text": ""#.utf8) + Array(repeating: 0x61, count: 70_000) + Array(#""}"#.utf8))
        #expect(big.status == 413)

        let seen = try await alice.run("/history #swift 3")
        #expect(seen.stdout.contains("<ci*> build 123 passed") && seen.stdout.contains("<ci*> [file report.pdf PDF"), "\(seen.stdout)")
        #expect(seen.stdout.components(separatedBy: "build 123 passed").count == 2, "once")
        let query = try await alice.run("/history @ci 1")
        #expect(query.stdout.contains("your report is ready"), "\(query.stdout)")
    }
}
