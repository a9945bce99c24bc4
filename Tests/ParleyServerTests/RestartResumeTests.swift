import Foundation
import ParleyClient
import ParleyCore
import ParleyTesting
import Testing

/// A server restarted on the same folder, by SIGTERM or by `kill -9`, answers a resume
/// from before the restart exactly: `complete: true` and the events missed, once, in
/// order. Positions and the events they name are kept in the database.
@Suite(.timeLimit(.minutes(10))) struct RestartResumeTests {
    enum Ending: String, CaseIterable {
        case sigterm
        case sigkill
    }

    @Test(arguments: Ending.allCases) func aResumeAfterARestartGetsExactlyWhatWasMissed(ending: Ending) async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("parley-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let first = try await onOwnThread { try ServeProcess.start(data: data, arguments: ["--max-registrations", "0"]) }

        let (alice, _) = try await Self.register("alice", on: first.url)
        let (bob, _) = try await Self.register("bob", on: first.url)
        let group = try await alice.createGroup(handle: "restart", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "restart")
        _ = try await alice.sendMessage(to: .chat(group.id), text: "seen", clientID: nil)
        await bob.close()

        // Bob's session, signed in after "seen": its position is where he resumes from.
        let (epoch, position, token) = try await Self.signInAsBob(port: first.port)

        // What bob misses: three messages, and on a clean stop a topic too (an event
        // that is not a message; a kill may take the last milliseconds of those).
        for number in 1...3 { _ = try await alice.sendMessage(to: .chat(group.id), text: "missed \(number)", clientID: "m\(number)") }
        if ending == .sigterm { _ = try await alice.setTopic("after the upgrade", in: group.id) }
        await alice.close()
        await onOwnThread {
            switch ending {
            case .sigterm: first.stop()
            case .sigkill: first.kill()
            }
        }

        let second = try await onOwnThread { try ServeProcess.start(data: data, arguments: ["--max-registrations", "0"]) }
        let again = try await TestSocket(port: second.port)
        var replayed: [[String: Any]] = []
        let resume = Self.resume(token: token, epoch: epoch, position: position)
        let reply = try await again.request(resume, events: &replayed)
        #expect(reply?["ok"] as? Bool == true, "\(String(describing: reply))")
        #expect((reply?["result"] as? [String: Any])?["complete"] as? Bool == true)

        // A message after the restart: once it is here, every replayed event is too.
        let later = RemoteChatService(url: second.url, folder: nil, connectTimeout: .seconds(120))
        _ = try await later.signIn(login: "@alice", password: "password-alice")
        _ = try await later.sendMessage(to: .chat(group.id), text: "after", clientID: nil)
        while let frame = await again.next() {
            replayed.append(frame)
            if Self.text(of: frame) == "after" { break }
        }
        let texts = replayed.compactMap(Self.text(of:))
        #expect(texts == ["missed 1", "missed 2", "missed 3", "after"])
        let topics = replayed.compactMap { (($0["data"] as? [String: Any])?["chat"] as? [String: Any])?["topic"] as? String }
        if ending == .sigterm { #expect(topics.contains("after the upgrade")) }
        let positions = replayed.compactMap { $0["pos"] as? Int }
        #expect(positions.count == replayed.count)
        #expect(positions == positions.sorted() && Set(positions).count == positions.count)
        #expect(positions.allSatisfy { $0 > position })

        await later.close()
        await again.close()
        await onOwnThread { second.stop() }
    }

    @Test func aResumeFromBeforeTheKeptEventsSaysSomethingMayBeMissing() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("parley-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let arguments = ["--max-registrations", "0", "--total-backlog", "16"]
        let first = try await onOwnThread { try ServeProcess.start(data: data, arguments: arguments) }
        let (alice, _) = try await Self.register("alice", on: first.url)
        let (bob, bobIn) = try await Self.register("bob", on: first.url)
        await bob.close()
        let (epoch, position, token) = try await Self.signInAsBob(port: first.port)
        // Forty events: more than the server keeps.
        for number in 1...40 { _ = try await alice.sendMessage(to: .user(bobIn.user.id), text: "missed \(number)", clientID: nil) }
        await alice.close()
        await onOwnThread { first.stop() }

        let second = try await onOwnThread { try ServeProcess.start(data: data, arguments: arguments) }
        let again = try await TestSocket(port: second.port)
        let resume = Self.resume(token: token, epoch: epoch, position: position)
        let reply = try await again.request(resume)
        #expect(reply?["ok"] as? Bool == true, "\(String(describing: reply))")
        #expect((reply?["result"] as? [String: Any])?["complete"] as? Bool == false)
        await again.close()
        await onOwnThread { second.stop() }
    }

    private static func register(_ name: String, on url: String) async throws -> (RemoteChatService, SignedIn) {
        let service = RemoteChatService(url: url, folder: nil, connectTimeout: .seconds(120))
        let signedIn = try await service.register(Registration(email: "\(name)@example.com", password: "password-\(name)", handle: name))
        return (service, signedIn)
    }

    /// A session of bob's, signed in over a raw socket and closed: where he resumes from.
    private static func signInAsBob(port: Int) async throws -> (epoch: String, position: Int, token: String) {
        let socket = try await TestSocket(port: port)
        let signIn = try await socket.request(#"{"id":1,"op":"sign_in","args":{"login":"@bob","password":"password-bob"}}"#)
        await socket.close()
        let signedIn = try #require(signIn?["result"] as? [String: Any])
        return (
            try #require(signedIn["epoch"] as? String), try #require(signedIn["position"] as? Int),
            try #require(signedIn["token"] as? String)
        )
    }

    private static func resume(token: String, epoch: String, position: Int) -> String {
        #"{"id":1,"op":"resume","args":{"token":"\#(token)","after":{"epoch":"\#(epoch)","position":\#(position)}}}"#
    }

    private static func text(of frame: [String: Any]) -> String? {
        ((frame["data"] as? [String: Any])?["message"] as? [String: Any])?["text"] as? String
    }
}
