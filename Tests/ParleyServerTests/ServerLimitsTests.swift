import Foundation
import GRDB
import NIOWebSocket
import ParleyClient
import ParleyCore
import ParleyEngine
import ParleyServer
import ParleyTesting
import Testing
import WSCore

/// What the server does when a client stops reading, keeps a session too long, or
/// meets an internal failure.
@Suite(.timeLimit(.minutes(10))) struct ServerLimitsTests {
    @Test func aClientThatStopsReadingIsClosedWhileTheOthersKeepReceivingAndItResumesWithoutLoss() async throws {
        let server = try await TestServer.start(backlog: 4096) {
            $0.maxUnwrittenBytes = 256 * 1024
            $0.slowReaderTimeout = .seconds(10)
            // The test reads the close frame once it has seen the close counted: a loaded
            // machine took that past the usual 30 s, and the frame was dropped with the socket.
            $0.closeLimit = .seconds(600)
            // A socket that reads nothing answers no pings either: the ping rule would
            // close it (without a close frame) once the flood outlasts two sweeps, as a
            // loaded machine made it. This test is about the held events, not the pings.
            $0.pingTimeout = .seconds(3600)
        }
        let (alice, _, _) = try await client(server, "alice")
        let (bob, bobLog, _) = try await client(server, "bob")
        let (_, _, stalledIn) = try await client(server, "stalled")
        let group = try await alice.createGroup(handle: "flood", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "flood")

        // A socket of the stalled user, signed in, that never reads after its reply.
        let port = server.port
        let token = stalledIn.token
        let socket = try await onOwnThread { () -> SilentSocket in
            let socket = try SilentSocket(port: port, receiveBuffer: 4096)
            try socket.sendText(#"{"id":1,"op":"resume","args":{"token":"\#(token)"}}"#)
            _ = socket.readText()
            try socket.sendText(#"{"id":2,"op":"join_group","args":{"handle":"flood"}}"#)
            _ = socket.readText()
            return socket
        }
        let signIn = try await TestSocket(port: server.port)
        let reply = try await signIn.request(#"{"id":1,"op":"sign_in","args":{"login":"@stalled","password":"password-stalled"}}"#)
        let result = try #require(reply?["result"] as? [String: Any])
        let (epoch, position) = (try #require(result["epoch"] as? String), try #require(result["position"] as? Int))
        let resumeToken = try #require(result["token"] as? String)
        await signIn.close()

        // 3,000 messages of 4,000 characters: 12 MB of events for the stalled socket, more
        // than the kernel's socket buffers (4 MB at most here) can take off the server.
        // While they go, what the channels buffer is sampled: the stalled socket's stops
        // at its high-water mark, where before it grew with every event.
        let most = Shared(0)
        let sampler = Task {
            while !Task.isCancelled {
                let pending = await server.server.channelBufferedBytes()
                most.withLock { $0 = max($0, pending) }
                guard await pause(.milliseconds(20)) else { break }
            }
        }
        let text = String(repeating: "x", count: 3990)
        for number in 1...3000 { _ = try await alice.sendMessage(to: .chat(group.id), text: "\(number) \(text)", clientID: nil) }
        // It reads nothing until the server has given up on it (a read would let the
        // held events flow again), then finds the close frame after what went before.
        var closedSlow = false
        // The server closes it 10 s after it stopped draining; the bound only ends a hang.
        for _ in 0..<3000 where !closedSlow {
            closedSlow = try await RawHTTP.request(port: server.port, method: "GET", path: "/metrics").text
                .contains("parley_slow_sockets_closed_total 1")
            if !closedSlow { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(closedSlow)
        let code = await socket.readCloseCode()
        sampler.cancel()
        #expect(code == 4008)
        // 64 KiB a channel and a batch (without the hold: 10.3 MB).
        #expect(most.withLock { $0 } < 1 << 20, "at most \(most.withLock { $0 } >> 10) KiB waited in the channels")
        #expect(await bobLog.wait(.seconds(120)) { _ in bobLog.messages.count == 3000 }, "bob got \(bobLog.messages.count)")

        // The stalled user reconnects and resumes from before the flood: all of it, once.
        let again = try await TestSocket(port: server.port)
        let resume = #"{"id":1,"op":"resume","args":{"token":"\#(resumeToken)","after":{"epoch":"\#(epoch)","position":\#(position)}}}"#
        var replayed: [[String: Any]] = []
        let resumed = try await again.request(resume, events: &replayed)
        #expect((resumed?["result"] as? [String: Any])?["complete"] as? Bool == true)
        // One more message: the socket's events come in order, so once it is here every
        // replayed event is too, and nothing else can follow them.
        _ = try await alice.sendMessage(to: .chat(group.id), text: "3001 barrier", clientID: nil)
        while let frame = await again.next() {
            if frame["event"] != nil { replayed.append(frame) }
            if ((frame["data"] as? [String: Any])?["message"] as? [String: Any])?["text"] as? String == "3001 barrier" { break }
        }
        let numbers = replayed.compactMap { frame -> Int? in
            guard let text = ((frame["data"] as? [String: Any])?["message"] as? [String: Any])?["text"] as? String else { return nil }
            return Int(text.prefix { $0 != " " })
        }
        #expect(numbers == Array(1...3001))
        let fetched = try await RawHTTP.request(port: server.port, method: "GET", path: "/metrics").text
        #expect(fetched.contains("parley_slow_sockets_closed_total 1"))
        await again.close()
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test func aSocketEndsWhenItsTokenIsSignedOutElsewhereOrExpires() async throws {
        let server = try await TestServer.start()
        let (alice, _, aliceIn) = try await client(server, "alice")
        // A second socket on the same token: signing out on the first ends it.
        let second = try await TestSocket(port: server.port)
        #expect(try await second.request(#"{"id":1,"op":"resume","args":{"token":"\#(aliceIn.token)"}}"#)?["ok"] as? Bool == true)
        try await alice.signOut()
        #expect(await second.closed()?.closeCode == .unknown(4001))
        await alice.close()
        await server.stop()

        // On a server whose sessions last four seconds, a fresh sign-in's socket is
        // closed when its session ends. (A server of its own: on the first, a busy
        // machine could let alice's token expire before the second socket used it.)
        let brief = try await TestServer.start(engine: { $0.sessionLifetime = .seconds(4) })
        let (bob, _, _) = try await client(brief, "bob")
        await bob.close()
        let third = try await TestSocket(port: brief.port)
        let signIn = try await third.request(#"{"id":1,"op":"sign_in","args":{"login":"@bob","password":"password-bob"}}"#)
        #expect(signIn?["ok"] as? Bool == true)
        #expect(await third.closed()?.closeCode == .unknown(4001))
        await brief.stop()
    }

    /// The upkeep runs again and again, not only at start: a session that expires while
    /// the server runs is deleted by a later pass, and `/metrics` counts it.
    @Test func expiredSessionsArePurgedWhileTheServerRuns() async throws {
        let clock = TestClock()
        let server = try await TestServer.start({ $0.upkeepInterval = .milliseconds(100) }, engine: { $0.now = { clock.now } })
        let (alice, _, _) = try await client(server, "alice")
        await alice.close()
        func purged() async throws -> Int? {
            try await RawHTTP.request(port: server.port, method: "GET", path: "/metrics").text.split(separator: "\n")
                .first { $0.hasPrefix("parley_expired_purged_total ") }
                .flatMap { Int($0.split(separator: " ")[1]) }
        }
        // Passes go by with nothing to purge: wait for the counter to show one has run.
        #expect(try await eventually { try await purged() == 0 })
        clock.advance(by: .seconds(31 * 24 * 3600))
        #expect(try await eventually { try await purged() == 1 }, "a later pass purged alice's expired session")
        let again = try await TestSocket(port: server.port)
        let reply = try await again.request(#"{"id":1,"op":"sign_in","args":{"login":"@alice","password":"password-alice"}}"#)
        #expect(reply?["ok"] as? Bool == true, "the account stays; only the session went")
        await again.close()
        await server.stop()
    }

    @Test func anInternalErrorReachesTheClientAsAReferenceWithoutItsDetail() async throws {
        let server = try await TestServer.start()
        let (alice, _, _) = try await client(server, "alice")
        let group = try await alice.createGroup(handle: "broken", title: nil, isPublic: true)
        // Break the database under the server: invites now fail inside SQLite.
        let queue = try DatabaseQueue(path: server.databasePath)
        try await queue.write { try $0.execute(sql: "DROP TABLE invite") }
        do {
            _ = try await alice.createInvite(chat: group.id, maxUses: nil, expiresIn: nil)
            Issue.record("creating an invite without its table succeeded")
        } catch let error as ParleyError {
            #expect(error.code == .internalError)
            #expect(error.message.contains("reference "), "\(error.message)")
            #expect(!error.message.contains("invite") && !error.message.lowercased().contains("sqlite"), "\(error.message)")
        }
        #expect(try await alice.sendMessage(to: .chat(group.id), text: "still fine", clientID: nil).seq == 1)
        await alice.close()
        await server.stop()
    }

    @Test func anAccountsSocketsShareOneRequestRate() async throws {
        // Each socket may make 1,000 requests a second; an account, 1 over all its sockets.
        let server = try await TestServer.start {
            $0.requestsPerSecond = 1000
            $0.requestsPerAccount = 1
        }
        let (alice, _, _) = try await client(server, "alice")
        let (bob, _, _) = try await client(server, "bob")
        // Another socket of alice's: 100 requests, nothing for the socket, are past the
        // account's rate, so they wait; 64 waiting close it as a flood.
        let flooding = try await TestSocket(port: server.port)
        _ = try await flooding.request(#"{"id":1,"op":"sign_in","args":{"login":"@alice","password":"password-alice"}}"#)
        for id in 2...101 { try? await flooding.send(#"{"id":\#(id),"op":"ping"}"#) }
        let close = await flooding.closed()
        #expect(close?.closeCode == .unknown(4029), "\(String(describing: close))")
        // bob's account has its own: his burst is answered at once, alice's spent one
        // holding nothing of his back.
        let other = try await TestSocket(port: server.port)
        _ = try await other.request(#"{"id":1,"op":"sign_in","args":{"login":"@bob","password":"password-bob"}}"#)
        for id in 2...3 { try await other.send(#"{"id":\#(id),"op":"ping"}"#) }
        for id in 2...3 {
            let reply = await other.next()
            #expect(reply?["id"] as? Int == id && reply?["error"] == nil, "\(String(describing: reply))")
        }
        await other.close()
        await alice.close()
        await bob.close()
        await server.stop()
    }
}
