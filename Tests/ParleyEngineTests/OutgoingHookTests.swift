import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Synchronization
import Testing

/// Outgoing hooks in the engine, on both stores, with a caller that records the calls
/// and answers as the test says.
@Suite(.timeLimit(.minutes(10))) struct OutgoingHookTests {
    final class Recorder: OutgoingHookCaller, Sendable {
        let calls = Mutex([OutgoingHookCall]())
        func call(_ call: OutgoingHookCall) { calls.withLock { $0.append(call) } }
        var count: Int { calls.withLock { $0.count } }
        func waitFor(_ count: Int) async -> [OutgoingHookCall] {
            let deadline = ContinuousClock.now + .seconds(120)
            while self.count < count, ContinuousClock.now < deadline, await pause(.milliseconds(10)) {}
            return calls.withLock { $0 }
        }
    }

    @Test(arguments: StoreKind.all) func triggeringMessagesAreCalledAndAnswersComeBackAsReplies(_ kind: StoreKind) async throws {
        let recorder = Recorder()
        let world = try await TestWorld(on: kind) {
            $0.outgoingHooks = recorder
            $0.outgoingHookRefusal = { $0.host == "hooks.example" ? nil : "not hooks.example" }
        }
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let ops = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "ops")
        let deploy = try await alice.createOutgoingHook(in: ops.id, name: "deploy", url: "https://hooks.example/d", trigger: "!Deploy")
        let helper = try await alice.createOutgoingHook(in: ops.id, name: "helper", url: "https://hooks.example/h", trigger: "mention")
        #expect(deploy.hook.trigger == "!deploy" && deploy.signingSecret?.count ?? 0 >= 43 && helper.hook.url == "https://hooks.example/h")

        // Refusals: not a manager, a host the operator did not allow, bad URLs and triggers.
        await expectError(.forbidden) {
            _ = try await bob.createOutgoingHook(in: ops.id, name: "x", url: "https://hooks.example/x", trigger: "!x")
        }
        await expectError(.forbidden) {
            _ = try await alice.createOutgoingHook(in: ops.id, name: "x", url: "http://10.0.0.1/x", trigger: "!x")
        }
        for (url, trigger) in [
            ("ftp://hooks.example/x", "!x"), ("https:///x", "!x"), ("https://hooks.example/x", "deploy"),
            ("https://hooks.example/x", "!a b"), ("https://hooks.example/x", "!" + String(repeating: "a", count: 33)),
        ] {
            await expectError(.invalidArgument) {
                _ = try await alice.createOutgoingHook(in: ops.id, name: "x", url: url, trigger: trigger)
            }
        }

        // Only triggering messages are called: the command as the first word, or @NAME.
        for text in ["deploy now please", "!deployment", "hello @helpers", "!deploy v1", "thanks @helper!", "plain"] {
            _ = try await bob.sendMessage(to: .chat(ops.id), text: text, clientID: nil)
        }
        let calls = await recorder.waitFor(2)
        #expect(calls.count == 2)
        let bodies = calls.compactMap { try? JSONSerialization.jsonObject(with: $0.body) as? [String: Any] }
        #expect(bodies.map { ($0["message"] as? [String: Any])?["text"] as? String } == ["!deploy v1", "thanks @helper!"])
        #expect(
            bodies.first?["trigger"] as? String == "!deploy" && (bodies.first?["hook"] as? [String: Any])?["name"] as? String == "deploy")
        #expect(calls.first?.url.absoluteString == "https://hooks.example/d" && calls.first?.secret == deploy.signingSecret)

        // The answer is the hook's reply to the message; the reply triggers no hook.
        await calls[0].answered("deploying v1 — @helper watch this")
        let history = try await bob.history(chat: ops.id, limit: 10, before: nil)
        let reply = try #require(history.last)
        #expect(
            reply.text == "deploying v1 — @helper watch this" && reply.via == .hook(name: "deploy", username: nil)
                && reply.replyTo?.seq == 4)
        // Failures are kept for the admins; a later message still gets through.
        await calls[1].failed("it answered HTTP 500")
        let listed = try await alice.hooks(in: ops.id).first { $0.name == "helper" }
        #expect(listed?.lastError == "it answered HTTP 500" && listed?.lastErrorAt != nil)
        _ = try await bob.sendMessage(to: .chat(ops.id), text: "!deploy v2", clientID: nil)
        #expect(await recorder.waitFor(3).count == 3, "the reply mentioning @helper called nothing; v2 did")
        // Asked in a thread: the hook is told which, and its answer goes into it.
        let root = try await alice.sendMessage(to: .chat(ops.id), text: "release plan", clientID: nil)
        let asked = try await bob.sendToThread(
            chat: ops.id, seq: root.seq, text: "!deploy v2.1", clientID: nil, via: nil, alsoToChat: false)
        let threaded = await recorder.waitFor(4)
        let body = try JSONSerialization.jsonObject(with: threaded[3].body) as? [String: Any]
        #expect((body?["message"] as? [String: Any])?["thread"] as? Int == Int(root.seq), "\(String(describing: body))")
        await threaded[3].answered("deploying v2.1")
        let answer = try #require(try await bob.history(chat: ops.id, flow: .thread(root.seq), limit: 10, before: nil).last)
        #expect(answer.text == "deploying v2.1" && answer.thread == root.seq && answer.replyTo?.seq == asked.seq)

        // Revoked: no more calls.
        try await alice.revokeHook(deploy.hook.id, in: ops.id)
        _ = try await bob.sendMessage(to: .chat(ops.id), text: "!deploy v3", clientID: nil)
        _ = try await bob.sendMessage(to: .chat(ops.id), text: "@helper last one", clientID: nil)
        let last = await recorder.waitFor(5)
        #expect(
            last.count == 5 && (try? JSONSerialization.jsonObject(with: last[4].body) as? [String: Any])?["trigger"] as? String == "mention"
        )
    }

    /// A batch of sends (what a piped script's run of /send lines becomes) calls the
    /// hooks its messages trigger, as single sends do; retried, it calls none again.
    @Test(arguments: StoreKind.all) func aBatchCallsTheHooksItsMessagesTrigger(_ kind: StoreKind) async throws {
        let recorder = Recorder()
        let world = try await TestWorld(on: kind) {
            $0.outgoingHooks = recorder
            $0.outgoingHookRefusal = { _ in nil }
        }
        let alice = try await world.signUp("alice")
        let ops = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        _ = try await alice.createOutgoingHook(in: ops.id, name: "deploy", url: "https://hooks.example/d", trigger: "!deploy")
        let batch = ["!deploy a", "plain", "!deploy b"].enumerated().map { OutgoingText(to: .chat(ops.id), text: $1, clientID: "c\($0)") }
        let sent = await alice.sendMessages(batch)
        #expect(sent.failure == nil && sent.sent.count == 3)
        let again = await alice.sendMessages(batch)
        #expect(again.sent.map(\.id) == sent.sent.map(\.id), "a retried batch lands once")
        // A later single send's call comes after any the retry could have made.
        _ = try await alice.sendMessage(to: .chat(ops.id), text: "!deploy c", clientID: nil)
        let calls = await recorder.waitFor(3)
        let texts = calls.map { call in
            ((try? JSONSerialization.jsonObject(with: call.body) as? [String: Any])?["message"] as? [String: Any])?["text"] as? String
        }
        // Each call is its own task, as a single send's is: they may go in any order.
        #expect(texts.compactMap { $0 }.sorted() == ["!deploy a", "!deploy b", "!deploy c"], "\(texts)")
    }
}
