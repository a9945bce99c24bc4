import Foundation
import ParleyEngine
import ParleyTesting
import Testing

/// One request per cell of the matrix, as a client of that door would make it; each
/// returns what the door answered, for the matrix to find its code in.
extension GateFixture {
    static let tooLong = refusedMark + String(repeating: "x", count: 4001)

    func probe(_ door: Door, _ rule: GateRule) async throws -> String {
        switch door {
        case .webSocket: try await webSocket(rule)
        case .irc: try await ircLine(rule)
        case .httpAPI: try await api(rule)
        case .media: try await media(rule)
        case .incomingHook: try await incomingHook(rule)
        case .outgoingHookAnswer: try await outgoingHookAnswer(rule)
        case .embedded: try await embeddedShell(rule)
        }
    }

    /// A socket signed in as `handle` (from `address`), or the refusal it got.
    private func socket(_ handle: String, from address: String? = nil) async throws -> (SilentSocket, String) {
        let socket = try SilentSocket(port: port, from: address)
        try socket.sendText(#"{"id":1,"op":"sign_in","args":{"login":"@\#(handle)","password":"\#(handle)-pass-1"}}"#)
        return await (socket, DoorRulesScriptTests.reply(socket, id: 1) ?? "no reply")
    }

    private func send(_ chat: Int, _ text: String, via: String? = nil) -> String {
        let quoted = (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        return #"{"chat":\#(chat),"text":\#(quoted)\#(via.map { #","via":"\#($0)""# } ?? "")}"#
    }

    private func webSocket(_ rule: GateRule) async throws -> String {
        let mark = Self.refusedMark
        switch rule {
        case .signedOut:
            let socket = try SilentSocket(port: port)
            try socket.sendText(#"{"id":7,"op":"send","args":\#(send(team, mark))}"#)
            return await DoorRulesScriptTests.reply(socket, id: 7) ?? "no reply"
        case .revokedToken:
            let socket = try SilentSocket(port: port)
            try socket.sendText(#"{"id":7,"op":"resume","args":{"token":"\#(revokedSession)"}}"#)
            return await DoorRulesScriptTests.reply(socket, id: 7) ?? "no reply"
        case .suspended, .bannedAccount: return try await socket("mallory").1
        case .bannedRange: return try await socket("bob", from: "127.0.0.2").1
        case .overRate:
            // More requests at once than the rate lets wait: the socket is closed.
            let (socket, _) = try await socket("bob")
            // The server may close mid-flood: a write that fails ends it.
            for id in 0..<3000 {
                guard (try? socket.sendText(#"{"id":\#(id + 10),"op":"ping","args":{}}"#)) != nil else { break }
            }
            return "close \(await socket.readCloseCode().map(String.init) ?? "none")"
        case .notMember, .notAdmin, .tooLarge, .forgedProvenance:
            let (socket, _) = try await socket("mallory")
            let request =
                switch rule {
                case .notMember: #"{"id":7,"op":"send","args":\#(send(open, mark))}"#
                case .notAdmin: #"{"id":7,"op":"delete_message","args":{"chat":\#(team),"seq":\#(bobSeq)}}"#
                case .tooLarge: #"{"id":7,"op":"send","args":\#(send(team, Self.tooLong))}"#
                default: #"{"id":7,"op":"send","args":\#(send(team, mark, via: "hook:CI:Release Bot"))}"#
                }
            try socket.sendText(request)
            return await DoorRulesScriptTests.reply(socket, id: 7) ?? "no reply"
        }
    }

    private func ircLine(_ rule: GateRule) async throws -> String {
        let mark = Self.refusedMark
        switch rule {
        case .signedOut:
            let client = try IRCTestClient(port: irc)
            try client.send("PRIVMSG #team :\(mark)")
            return await client.wait(containing: " 451 ") ?? client.lines.joined(separator: "\n")
        case .revokedToken:
            // mallory signs her IRC connection's session out from a socket: it ends.
            let client = try IRCTestClient(port: irc)
            try await #require(try client.signIn("mallory", password: "mallory-pass-1"))
            let (socket, _) = try await socket("mallory")
            let sessions = try await request(socket, id: 2, op: "sessions", args: "{}")
            let ircSession = try #require(
                ((sessions["result"] as? [[String: Any]]) ?? []).first { $0["client"] as? String == "irc" }?["id"] as? String, "\(sessions)"
            )
            _ = try await request(socket, id: 3, op: "revoke_session", args: #"{"id":"\#(ircSession)"}"#)
            return await client.wait(containing: "ERROR :Closing link: ") ?? client.lines.joined(separator: "\n")
        case .suspended, .bannedAccount, .bannedRange:
            let client = try IRCTestClient(port: irc, from: rule == .bannedRange ? "127.0.0.2" : nil)
            _ = try await client.signIn(
                rule == .bannedRange ? "bob" : "mallory", password: rule == .bannedRange ? "bob-pass-1" : "mallory-pass-1")
            return client.lines.joined(separator: "\n")
        case .overRate:
            let client = try IRCTestClient(port: irc)
            try await #require(try client.signIn("bob", password: "bob-pass-1"))
            // The server may close mid-flood (a loaded CI run saw a broken pipe): a write that fails ends it.
            for index in 0..<3000 {
                guard (try? client.send("PING flood-\(index)")) != nil else { break }
            }
            return await client.wait(containing: "ERROR :Closing link: ") ?? client.lines.suffix(3).joined(separator: "\n")
        case .notMember, .notAdmin, .tooLarge, .forgedProvenance:
            let client = try IRCTestClient(port: irc)
            try await #require(try client.signIn("mallory", password: "mallory-pass-1"))
            let (line, numeric) =
                switch rule {
                case .notMember: ("PRIVMSG #open :\(mark)", " 404 ")
                case .notAdmin: ("KICK #team bob :\(mark)", " 482 ")
                default: ("PRIVMSG #team :\(mark)" + String(repeating: "x", count: 600), " 417 ")
                }
            try client.send(line)
            return await client.wait(containing: numeric) ?? client.lines.suffix(3).joined(separator: "\n")
        }
    }

    private func post(_ path: String, _ body: String, token: String?, from address: String? = nil) async throws -> String {
        try await Self.post(port: port, path, body, token: token, from: address)
    }

    private static func post(port: Int, _ path: String, _ body: String, token: String?, from address: String? = nil) async throws -> String
    {
        let answer = try await RawHTTP.request(
            port: port, method: "POST", path: path, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:], body: Array(body.utf8),
            from: address)
        return "\(answer.status) \(answer.text)"
    }

    private func api(_ rule: GateRule) async throws -> String {
        let mark = Self.refusedMark
        switch rule {
        case .signedOut: return try await post("/v1/api/send", send(team, mark), token: nil)
        case .revokedToken: return try await post("/v1/api/send", send(team, mark), token: revokedSession)
        case .suspended, .bannedAccount: return try await post("/v1/api/send", send(team, mark), token: botToken)
        case .bannedRange: return try await post("/v1/api/send", send(team, mark), token: botToken, from: "127.0.0.2")
        case .notMember: return try await post("/v1/api/send", send(open, mark), token: botToken)
        case .notAdmin: return try await post("/v1/api/delete_message", #"{"chat":\#(team),"seq":\#(bobSeq)}"#, token: botToken)
        case .tooLarge: return try await post("/v1/api/send", send(team, Self.tooLong), token: botToken)
        case .forgedProvenance: return try await post("/v1/api/send", send(team, mark, via: "hook:CI"), token: botToken)
        case .overRate:
            let (port, token) = (port, botToken)
            return try await burst(60) { try await Self.post(port: port, "/v1/api/me", "{}", token: token) }
        }
    }

    /// `count` requests at once, well past the rate (the world's account rate is 2 a
    /// second, bursts of 4): the first refused one's answer. However slow the machine,
    /// 60 requests at once don't take the 28 s the rate would need to take them all.
    private func burst(_ count: Int, _ request: @escaping @Sendable () async throws -> String) async throws -> String {
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<count { group.addTask { try await request() } }
            var refused: String?
            for try await answer in group where refused == nil && answer.hasPrefix("429 ") { refused = answer }
            return refused ?? "every request answered"
        }
    }

    private func upload(_ body: [UInt8], token: String?, from address: String? = nil) async throws -> String {
        let answer = try await RawHTTP.request(
            port: port, method: "PUT", path: "/v1/media?kind=file&chat=\(team)",
            headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:], body: body, from: address)
        return "\(answer.status) \(answer.text)"
    }

    private func media(_ rule: GateRule) async throws -> String {
        let file = Array("\(Self.refusedMark)\n".utf8)
        switch rule {
        case .signedOut: return try await upload(file, token: nil)
        case .revokedToken: return try await upload(file, token: revokedBotToken)
        case .suspended, .bannedAccount: return try await upload(file, token: botToken)
        case .bannedRange: return try await upload(file, token: botToken, from: "127.0.0.2")
        case .tooLarge: return try await upload(Array(repeating: 0x41, count: 1_100_000), token: botToken)
        case .notMember, .overRate:
            let (port, path, token) = (port, "/v1/media/\(secretMedia)", botToken)
            let get: @Sendable () async throws -> String = {
                let answer = try await RawHTTP.request(port: port, method: "GET", path: path, headers: ["Authorization": "Bearer \(token)"])
                return "\(answer.status) \(answer.text)"
            }
            return try await rule == .notMember ? get() : burst(60, get)
        case .notAdmin, .forgedProvenance: return "not asked"
        }
    }

    private func incomingHook(_ rule: GateRule) async throws -> String {
        let body = #"{"text":"\#(Self.refusedMark)"}"#
        switch rule {
        case .signedOut: return try await post("/v1/hooks/not-a-hook", body, token: nil)
        case .revokedToken: return try await post(removedHookPath, body, token: nil)
        case .suspended, .bannedAccount, .notMember: return try await post(hookPath, body, token: nil)
        case .bannedRange: return try await post(hookPath, body, token: nil, from: "127.0.0.2")
        case .tooLarge: return try await post(hookPath, #"{"text":"\#(String(repeating: "x", count: 9000))"}"#, token: nil)
        case .overRate:
            // Those within the rate land: they carry no mark.
            let (port, path) = (port, hookPath)
            return try await burst(40) { try await Self.post(port: port, path, #"{"text":"within the rate"}"#, token: nil) }
        case .notAdmin, .forgedProvenance: return "not asked"
        }
    }

    /// bob calls hank's hook; its answer is refused as hank, and `/hooks` says why.
    private func outgoingHookAnswer(_ rule: GateRule) async throws -> String {
        let code =
            switch rule {
            case .suspended: "account_suspended"
            case .bannedAccount: "server_banned"
            default: "not_member"
            }
        try await run("bob", "/send #team !probe \(rule.rawValue)")
        return try await OutgoingHookScriptTests.poll({ try await self.run("alice", "/hooks #team").stdout }) { $0.contains("(\(code))") }
    }

    /// ben, in the embedded shell.
    private func embeddedShell(_ rule: GateRule) async throws -> String {
        let script: String? =
            switch rule {
            case .signedOut: nil
            case .notMember: "/send #eb \(Self.refusedMark)"
            case .notAdmin: "/kick @ann #ea"
            case .tooLarge: "/send #ea \(Self.tooLong)"
            default: "/whoami"
            }
        guard let script else {
            let fresh = ParleyBinary(serverURL: nil)
            defer { fresh.remove() }
            return try await fresh.run("/send #ea \(Self.refusedMark)").stderr
        }
        return try await embedded.run(script).stderr
    }
}
