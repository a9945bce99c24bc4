import Crypto
import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Incoming webhooks in the engine, on both stores: who may make them, what a post
/// becomes, and every refusal leaving the group as it was.
@Suite(.timeLimit(.minutes(10))) struct HookTests {
    static func token(_ made: CreatedHook) -> String { String(made.path.dropFirst(Hook.pathPrefix.count)) }

    @Test(arguments: StoreKind.all) func aHookPostsAsItselfUntilRevoked(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.hookRate = 0 }
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let ops = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "ops")
        let made = try await alice.createHook(in: ops.id, name: "  CI ", signingSecret: nil)
        #expect(made.hook.name == "CI" && made.hook.createdBy.handle == "alice" && !made.hook.signed && made.path.hasPrefix("/v1/hooks/"))
        let token = Self.token(made)
        #expect(token.count >= 43, "256 random bits")

        let recorder = EventRecorder(bob)
        let posted = try await world.engine.postFromHook(
            token: token, body: Array("build 7 passed".utf8), headers: HookHeaders(contentType: "text/plain"), address: "127.0.0.1")
        #expect(posted.text == "build 7 passed" && posted.via == .hook(name: "CI", username: nil) && posted.sender.handle == "alice")
        #expect(await recorder.first { if case .message(let event) = $0 { event.message.id == posted.id } else { false } } != nil)
        let hooks = try await alice.hooks(in: ops.id)
        #expect(hooks.count == 1 && hooks[0].lastUsedAt != nil)
        // A key posts once, however often it comes.
        let keyed = HookHeaders(contentType: "text/plain", deliveryKey: "delivery-1")
        let first = try await world.engine.postFromHook(token: token, body: Array("once".utf8), headers: keyed, address: "127.0.0.1")
        let again = try await world.engine.postFromHook(token: token, body: Array("once".utf8), headers: keyed, address: "127.0.0.1")
        #expect(first.id == again.id)

        // Only the owner and admins make, list and revoke them, and only in groups.
        await expectError(.forbidden) { _ = try await bob.createHook(in: ops.id, name: "mine", signingSecret: nil) }
        await expectError(.forbidden) { _ = try await bob.hooks(in: ops.id) }
        let direct = try await alice.sendMessage(to: .user(try await bob.me().id), text: "hi", clientID: nil).chatID
        await expectError(.notAGroup) { _ = try await alice.createHook(in: direct, name: "CI", signingSecret: nil) }
        for bad in ["", "a/b", "tab\there", String(repeating: "x", count: 33), "ünï"] {
            await expectError(.invalidArgument) { _ = try await alice.createHook(in: ops.id, name: bad, signingSecret: nil) }
        }
        await expectError(.invalidArgument) { _ = try await alice.createHook(in: ops.id, name: "x", signingSecret: "bell\u{7}") }

        // Revoked, mistyped and never-made tokens are one refusal; nothing is posted.
        let before = try await bob.history(chat: ops.id, limit: 50, before: nil).count
        try await alice.revokeHook(made.hook.id, in: ops.id)
        await expectError(.unknownHook) { try await alice.revokeHook(made.hook.id, in: ops.id) }
        for wrong in [token, token + "x", "", String(repeating: "a", count: 4000), "with space", "ünï"] {
            await expectError(.unknownHook) {
                _ = try await world.engine.postFromHook(
                    token: wrong, body: Array("x".utf8), headers: HookHeaders(contentType: "text/plain"), address: "127.0.0.1")
            }
        }
        #expect(try await bob.history(chat: ops.id, limit: 50, before: nil).count == before)
        // A hook whose maker was kicked stops, with the same answer.
        try await alice.setRole(.admin, for: try await bob.me().id, in: ops.id)
        let bobs = try await bob.createHook(in: ops.id, name: "bob", signingSecret: nil)
        _ = try await world.engine.postFromHook(
            token: Self.token(bobs), body: Array("from bob's hook".utf8), headers: HookHeaders(), address: "127.0.0.1")
        try await alice.kick(user: try await bob.me().id, from: ops.id)
        await expectError(.unknownHook) {
            _ = try await world.engine.postFromHook(
                token: Self.token(bobs), body: Array("after".utf8), headers: HookHeaders(), address: "127.0.0.1")
        }
        #expect(try await alice.hooks(in: ops.id).map(\.name) == ["bob"], "the admins still see it, to revoke it")
    }

    /// Threads from hooks: Slack's `thread_ts` names a message the hook posted (by the
    /// `ts` its answer gave) and the post goes into its thread; GitHub's deliveries about
    /// one pull request or issue go into one thread, titled after it.
    @Test(arguments: StoreKind.all) func hooksPostIntoThreads(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.hookRate = 0 }
        let alice = try await world.signUp("alice")
        let ops = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        let token = Self.token(try await alice.createHook(in: ops.id, name: "deploys", signingSecret: nil))
        let json = HookHeaders(contentType: "application/json")
        func post(_ body: String, _ headers: HookHeaders = HookHeaders(contentType: "application/json")) async throws -> Message {
            try await world.engine.postFromHook(token: token, body: Array(body.utf8), headers: headers, address: "127.0.0.1")
        }
        let root = try await post(#"{"text": "deploying v2"}"#)
        let step = try await post(#"{"text": "step 1 done", "thread_ts": "\#(root.seq)"}"#)
        #expect(step.thread == root.seq)
        // Slack's own form of a ts, and a reply's ts, name the same thread.
        #expect(try await post(#"{"text": "step 2", "thread_ts": "\#(step.seq).000000"}"#, json).thread == root.seq)
        #expect(try await alice.thread(chat: ops.id, root: root.seq).replies == 2)
        await expectError(.invalidArgument) { _ = try await post(#"{"text": "x", "thread_ts": "1.5"}"#) }
        await expectError(.unknownMessage) { _ = try await post(#"{"text": "x", "thread_ts": "999"}"#) }

        let github = HookHeaders(contentType: "application/json", githubEvent: "pull_request")
        func delivery(_ action: String, _ number: Int) -> String {
            #"{"action": "\#(action)", "number": \#(number), "pull_request": {"number": \#(number), "title": "Faster sends"}, "#
                + #""repository": {"full_name": "acme/parley"}, "sender": {"login": "carol"}}"#
        }
        let opened = try await post(delivery("opened", 42), github)
        #expect(opened.thread == nil)
        let comment = HookHeaders(contentType: "application/json", githubEvent: "issue_comment")
        let commented = try await post(
            #"{"action": "created", "issue": {"number": 42, "title": "Faster sends"}, "comment": {"body": "LGTM"}, "#
                + #""repository": {"full_name": "acme/parley"}, "sender": {"login": "dave"}}"#, comment)
        let merged = try await post(delivery("closed", 42), github)
        #expect(commented.thread == opened.seq && merged.thread == opened.seq)
        #expect(try await post(delivery("opened", 43), github).thread == nil, "another pull request, another thread")
        let thread = try await alice.thread(chat: ops.id, root: opened.seq)
        #expect(thread.title == "acme/parley#42 Faster sends" && thread.replies == 2)
    }

    @Test(arguments: StoreKind.all) func signedHooksRefuseUnsignedPostsAndTheRateIsKept(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.hookRate = 1 }
        let alice = try await world.signUp("alice")
        let ops = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        let made = try await alice.createHook(in: ops.id, name: "GitHub", signingSecret: "s3cret")
        #expect(made.hook.signed)
        let body = Array(#"{"zen":"Design for failure.","repository":{"full_name":"acme/w"}}"#.utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data("s3cret".utf8)))
        let good = "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
        let wrong: [String?] = [nil, "sha256=", "sha1=abc", String(good.dropLast()) + "0", "sha256=" + String(repeating: "zz", count: 32)]
        for signature in wrong {
            await expectError(.badSignature) {
                _ = try await world.engine.postFromHook(
                    token: Self.token(made), body: body, headers: HookHeaders(githubEvent: "ping", signature: signature),
                    address: "127.0.0.1")
            }
        }
        let posted = try await world.engine.postFromHook(
            token: Self.token(made), body: body, headers: HookHeaders(githubEvent: "ping", signature: good), address: "127.0.0.1")
        #expect(posted.text == "GitHub hook for acme/w is set up: Design for failure.")
        // One a second in bursts of four: posting on, a refusal must come (bounded, for
        // a machine too slow to outrun one a second).
        var refused: ParleyError?
        for number in 1...200 where refused == nil {
            do {
                _ = try await world.engine.postFromHook(
                    token: Self.token(made), body: body,
                    headers: HookHeaders(githubEvent: "ping", signature: good, deliveryKey: "\(number)"), address: "127.0.0.1")
            } catch let error as ParleyError {
                refused = error
            }
        }
        #expect(refused?.code == .rateLimited)
    }
}
