import Foundation
import ParleyClient
import ParleyCore
import ParleyEngine
import ParleyServer
import ParleyTesting
import Testing

/// What a hostile client sends: each request must get its error code and leave the
/// server serving everyone else.
@Suite(.timeLimit(.minutes(10))) struct HostileInputTests {
    @Test func anInviteExpiryPastTenYearsIsRefusedAndTheServerKeepsServing() async throws {
        let server = try await TestServer.start()
        let (alice, _, _) = try await client(server, "alice")
        let group = try await alice.createGroup(handle: "far", title: nil, isPublic: false)
        // 1e16 seconds trapped when the expiry was stored as milliseconds.
        await #expect(throws: ParleyError.self) {
            _ = try await alice.createInvite(chat: group.id, maxUses: nil, expiresIn: .seconds(10_000_000_000_000_000))
        }
        let socket = try await TestSocket(port: server.port)
        _ = try await socket.request(#"{"id":1,"op":"sign_in","args":{"login":"@alice","password":"password-alice"}}"#)
        for (id, seconds) in [(2, "9223372036854775807"), (3, "1e300"), (4, "-5"), (5, "0")] {
            let reply = try await socket.request(
                #"{"id":\#(id),"op":"create_invite","args":{"chat":\#(group.id.rawValue),"expires_in_seconds":\#(seconds)}}"#)
            #expect((reply?["error"] as? [String: Any])?["code"] as? String == "invalid_argument", "\(seconds): \(reply ?? [:])")
        }
        // Still serving, and a sane expiry works.
        let invite = try await alice.createInvite(chat: group.id, maxUses: 1, expiresIn: .seconds(3600))
        #expect(invite.expiresAt != nil)
        #expect(try await alice.sendMessage(to: .chat(group.id), text: "still here", clientID: nil).seq == 1)
        await socket.close()
        await alice.close()
        await server.stop()
    }

    @Test func aVideoWhoseBoxSizeOverflowsIsRefusedAndTheServerKeepsServing() async throws {
        let server = try await TestServer.start()
        let (alice, _, signedIn) = try await client(server, "alice")
        // An ftyp box, then a box of 64-bit size 2^63-1: the walk overflowed offset + size.
        let ftyp: [UInt8] = [0, 0, 0, 16] + Array("ftypisom".utf8) + [0, 0, 2, 0]
        let huge: [UInt8] = [0, 0, 0, 1] + Array("mdat".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        let body = ftyp + huge + [UInt8](repeating: 0, count: 48 - ftyp.count - huge.count)
        let response = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media?kind=video", headers: ["Authorization": "Bearer \(signedIn.token)"],
            body: body)
        #expect(response.status == 400)
        #expect(response.text.contains("truncated_media"), "\(response.text)")
        let fetched = try await RawHTTP.request(port: server.port, method: "GET", path: "/healthz").text
        #expect(fetched == "ok\n")
        _ = try await alice.createGroup(handle: "alive", title: nil, isPublic: true)
        await alice.close()
        await server.stop()
    }

    @Test func malformedHTTPIsAnswered400AndClosed() async throws {
        let server = try await TestServer.start()
        let port = server.port
        let requests: [(String, [UInt8])] = [
            ("garbage", Array("hello there\r\n\r\n".utf8)),
            ("HTTP/2 preface", Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)),
            (
                "200 KiB header",
                Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 200 * 1024))\r\n\r\n".utf8)
            ),
            (
                "length and chunked",
                Array("PUT /v1/media HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".utf8)
            ),
            ("negative length", Array("PUT /v1/media HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n".utf8)),
            ("bad chunk", Array("PUT /v1/media HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n".utf8)),
        ]
        for (name, bytes) in requests {
            let (answer, closed) = try await onOwnThread { try rawExchange(port: port, bytes) }
            // The 200 KiB header may be cut off by a reset once the server has answered.
            #expect(answer.hasPrefix("HTTP/1.1 400") || (name == "200 KiB header" && answer.isEmpty), "\(name): \(answer.prefix(80))")
            #expect(closed, "\(name) left the connection open")
        }
        let upgrade = "Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        let key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        let upgrades: [(String, String, String)] = [
            ("no key", "GET /v1/ws HTTP/1.1\r\n\(upgrade)Sec-WebSocket-Version: 13\r\n\r\n", "HTTP/1.1 400"),
            ("version 8", "GET /v1/ws HTTP/1.1\r\n\(upgrade)\(key)Sec-WebSocket-Version: 8\r\n\r\n", "HTTP/1.1 426"),
            ("wrong path", "GET /elsewhere HTTP/1.1\r\n\(upgrade)\(key)Sec-WebSocket-Version: 13\r\n\r\n", "HTTP/1.1 404"),
        ]
        for (name, request, status) in upgrades {
            let (answer, closed) = try await onOwnThread { try rawExchange(port: port, Array(request.utf8)) }
            #expect(answer.hasPrefix(status), "\(name): \(answer.prefix(80))")
            #expect(closed, "\(name) left the connection open")
        }
        let fetched = try await RawHTTP.request(port: server.port, method: "GET", path: "/healthz").text
        #expect(fetched == "ok\n")
        await server.stop()
    }

    /// The handshake deadline alone, so the per-address limit is off: all 2,200 come from
    /// 127.0.0.1 (`oneAddressCannotFillTheServer` tests that limit through the binary).
    @Test func silentConnectionsAndHalfUpgradesDoNotKeepANewClientOutAndAreClosed() async throws {
        let server = try await TestServer.start {
            $0.handshakeTimeout = .seconds(5)
        } engine: {
            $0.maxUnsignedPerAddress = 0
        }
        let port = server.port
        let silent = try await onOwnThread { try (0..<2000).map { _ in try connectToLocalhost(port: port) } }
        let half = try await onOwnThread {
            try (0..<200).map { _ in
                let fd = try connectToLocalhost(port: port)
                let start = Array("GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n".utf8)
                _ = start.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return fd
            }
        }
        // While they are all open, a new client signs up, creates a group and sends.
        let (alice, _, _) = try await client(server, "alice")
        let group = try await alice.createGroup(handle: "busy", title: nil, isPublic: true)
        #expect(try await alice.sendMessage(to: .chat(group.id), text: "through the crowd", clientID: nil).seq == 1)
        // Every one of them is closed by the server (the 120 s only guards against a hang),
        // and each by the handshake deadline: the counter says so, whatever the load.
        let closedAll = await onOwnThread { (silent + half).allSatisfy { readUntilClosed($0, timeout: .seconds(120)).closed } }
        #expect(closedAll)
        for fd in silent + half { close(fd) }
        let fetched = try await RawHTTP.request(port: server.port, method: "GET", path: "/metrics").text
        #expect(fetched.contains("parley_handshake_timeouts_total 2200"))
        await alice.close()
        await server.stop()
    }

    @Test func connectionsPastTheCapAreRefusedWith503() async throws {
        let server = try await TestServer.start {
            $0.maxConnections = 3
            $0.handshakeTimeout = .seconds(120)
        }
        let port = server.port
        // Three connections the server has surely taken: each has had an answer, and
        // stays open (keep-alive).
        let held = try await onOwnThread {
            try (0..<3).map { _ in
                let fd = try connectToLocalhost(port: port)
                let request = Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
                _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                var answer: [UInt8] = []
                var byte: UInt8 = 0
                while !answer.ends(with: Array("ok\n".utf8)), read(fd, &byte, 1) == 1 { answer.append(byte) }
                return fd
            }
        }
        let (answer, closed) = try await onOwnThread { try rawExchange(port: port, Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8)) }
        #expect(answer.hasPrefix("HTTP/1.1 503"), "\(answer)")
        #expect(closed)
        for fd in held { close(fd) }
        await server.stop()
    }

    /// Each RFC 6455 violation closes the socket with its code.
    @Test func framesAgainstTheRulesCloseWithTheirCodes() async throws {
        let server = try await TestServer.start()
        let port = server.port
        let ping = Array(#"{"id":1,"op":"ping"}"#.utf8)
        let cases: [(String, @Sendable (SilentSocket) throws -> Void, UInt16)] = [
            ("unmasked", { try $0.sendFrame(opcode: 0x1, masked: false, payload: ping) }, 1002),
            ("reserved bit", { try $0.sendFrame(opcode: 0x1, rsv: 4, payload: ping) }, 1002),
            ("reserved opcode", { try $0.sendFrame(opcode: 0x3, payload: ping) }, 1002),
            ("reserved control opcode", { try $0.sendFrame(opcode: 0xB, payload: []) }, 1002),
            ("stray continuation", { try $0.sendFrame(opcode: 0x0, payload: ping) }, 1002),
            ("close 999", { try $0.sendFrame(opcode: 0x8, payload: [0x03, 0xE7]) }, 1002),
            ("close 1004", { try $0.sendFrame(opcode: 0x8, payload: [0x03, 0xEC]) }, 1002),
            ("close 1005", { try $0.sendFrame(opcode: 0x8, payload: [0x03, 0xED]) }, 1002),
            ("close 5000", { try $0.sendFrame(opcode: 0x8, payload: [0x13, 0x88]) }, 1002),
            ("close of one byte", { try $0.sendFrame(opcode: 0x8, payload: [0x03]) }, 1002),
            ("close reason not UTF-8", { try $0.sendFrame(opcode: 0x8, payload: [0x03, 0xE8, 0xFF, 0xFE]) }, 1007),
            ("close 1000 is echoed", { try $0.sendFrame(opcode: 0x8, payload: [0x03, 0xE8]) }, 1000),
            ("close 4000 is echoed", { try $0.sendFrame(opcode: 0x8, payload: [0x0F, 0xA0]) }, 4000),
            // Refused by the frame decoder itself.
            ("fragmented ping", { try $0.sendFrame(opcode: 0x9, fin: false, payload: []) }, 1002),
            ("ping of 126 bytes", { try $0.sendFrame(opcode: 0x9, payload: Array(repeating: 0x61, count: 126)) }, 1002),
        ]
        for (name, send, code) in cases {
            let got = try await onOwnThread {
                let socket = try SilentSocket(port: port)
                try send(socket)
                return socket.readCloseCode()
            }
            #expect(got == code, "\(name)")
        }
        // The server still answers a well-formed socket.
        let socket = try await TestSocket(port: port)
        #expect(try await socket.request(#"{"id":9,"op":"ping"}"#)?["ok"] as? Bool == true)
        await socket.close()
        await server.stop()
    }

    /// A client that registers itself as a bot, or feeds the sign-up and bot ops junk,
    /// gets an error code and makes nothing.
    @Test func selfMadeBotsAndBadCodeRequestsAreRefused() async throws {
        let server = try await TestServer.start(engine: { $0.admins = ["alice"] })
        let socket = try await TestSocket(port: server.port)
        func code(_ reply: [String: Any]?) -> String? { (reply?["error"] as? [String: Any])?["code"] as? String }
        let selfMade = try await socket.request(
            #"{"id":1,"op":"register","args":{"email":"b@example.com","password":"password-bot","handle":"sneaky","is_bot":true}}"#)
        #expect(code(selfMade) == "forbidden", "\(selfMade ?? [:])")
        #expect(
            code(try await socket.request(#"{"id":2,"op":"create_bot","args":{"handle":"x","password":"password-x"}}"#)) == "not_signed_in")
        _ = try await socket.request(
            #"{"id":3,"op":"register","args":{"email":"a@example.com","password":"password-alice","handle":"alice"}}"#)
        let cases: [(String, String)] = [
            (#"{"id":4,"op":"create_signup_code","args":{"max_uses":0}}"#, "invalid_argument"),
            (#"{"id":5,"op":"create_signup_code","args":{"max_uses":9223372036854775807}}"#, "invalid_argument"),
            (#"{"id":6,"op":"create_signup_code","args":{"expires_in_seconds":-1}}"#, "invalid_argument"),
            (#"{"id":7,"op":"create_signup_code","args":{"expires_in_seconds":9223372036854775807}}"#, "invalid_argument"),
            (#"{"id":8,"op":"create_signup_code","args":{"max_uses":1e99}}"#, "invalid_argument"),
            (#"{"id":9,"op":"revoke_signup_code","args":{"code":"\#(String(repeating: "z", count: 5000))"}}"#, "invalid_invite"),
            (
                #"{"id":10,"op":"create_bot","args":{"handle":"\#(String(repeating: "b", count: 5000))","password":"password-b"}}"#,
                "invalid_handle"
            ),
            (#"{"id":11,"op":"create_bot","args":{"handle":"okbot","password":""}}"#, "invalid_password"),
            (#"{"id":12,"op":"create_bot","args":{"password":"password-b"}}"#, "invalid_argument"),
        ]
        for (request, expected) in cases {
            let reply = try await socket.request(request)
            #expect(code(reply) == expected, "\(request.prefix(80)): \(reply ?? [:])")
        }
        let codes = try await socket.request(#"{"id":13,"op":"signup_codes"}"#)
        #expect((codes?["result"] as? [Any])?.isEmpty == true, "\(codes ?? [:])")
        let bots = try await socket.request(#"{"id":14,"op":"bots"}"#)
        #expect((bots?["result"] as? [Any])?.isEmpty == true, "\(bots ?? [:])")
        let sneaky = try await socket.request(#"{"id":15,"op":"user","args":{"handle":"sneaky"}}"#)
        #expect(code(sneaky) == "unknown_user")
        await socket.close()
        await server.stop()
    }
}
