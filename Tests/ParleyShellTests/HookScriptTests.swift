import Crypto
import Foundation
import ParleyTesting
import Testing

/// Incoming webhooks through the binary, on both stores: `/hook new` in a shell, posts
/// from outside over HTTP as the tools send them, and what a shell sees.
@Suite(.timeLimit(.minutes(10))) struct HookScriptTests {
    static func post(_ port: Int, _ path: String, _ body: String, headers: [String: String] = [:]) async throws -> RawHTTP.Response {
        try await RawHTTP.request(port: port, method: "POST", path: path, headers: headers, body: Array(body.utf8))
    }

    /// A hook's answer names the message it posted (`X-Parley-Ts`; Slack's JSON when JSON
    /// is asked for), and a later post's `thread_ts` names it to go into its thread, which
    /// the shell shows as the thread of that message.
    @Test func aHooksAnswerNamesTheMessageThatALaterPostThreadsUnder() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let (alice, port) = (world.alice, world.server.port)
        let made = try await alice.run("/hook new #swift --name deploys")
        let path = try #require(
            made.lines.first { $0.contains("/v1/hooks/") }.map { String($0[$0.range(of: "/v1/hooks/")!.lowerBound...]) })
        let first = try await Self.post(port, path, #"{"text":"deploying v2"}"#, headers: ["Content-Type": "application/json"])
        #expect(first.text == "ok", "Slack's answer to a client that did not ask for JSON")
        let ts = try #require(first.headers["x-parley-ts"])
        let answered = try await Self.post(
            port, path, #"{"text":"step 1 done","thread_ts":"\#(ts)"}"#,
            headers: ["Content-Type": "application/json", "Accept": "application/json"])
        #expect(answered.headers["content-type"] == "application/json", "\(answered.headers)")
        let reply = try #require(try JSONSerialization.jsonObject(with: Data(answered.body)) as? [String: Any])
        #expect(reply["ok"] as? Bool == true && reply["thread_ts"] as? String == ts && (reply["ts"] as? String).flatMap { Int($0) } != nil)
        let thread = try await alice.run("/history #swift/\(ts)")
        #expect(thread.lines.contains { $0.contains(" #swift/\(ts) <") && $0.hasSuffix("> step 1 done") }, "\(thread.stdout)")
        let main = try await alice.run("/history #swift 1")
        #expect(main.stdout.contains("deploying v2") && main.stdout.contains("↳ 1 reply (thread \(ts))"), "\(main.stdout)")
    }

    @Test(arguments: StoreKind.all) func hooksPostSlackAlertmanagerGitHubAndText(_ store: StoreKind) async throws {
        let world = try await IRCGatewayTests.world(
            arguments: ["--hook-rate", "2", "--max-hook-kib", "8"]
                + (try store.serveArguments()))
        defer { world.remove() }
        let (alice, bob, port) = (world.alice, world.bob, world.server.port)
        #expect(try await bob.run("/join #swift").status == 0)
        let made = try await alice.run(
            "/hook new #swift --name CI\n/hook new #swift --name GitHub --signing-secret-env GH_SECRET\n/hooks #swift",
            environment: ["GH_SECRET": "octo-secret"])
        #expect(made.status == 0, "\(made.stderr)")
        let paths = made.lines.filter { $0.contains("/v1/hooks/") }.map { String($0[$0.range(of: "/v1/hooks/")!.lowerBound...]) }
        #expect(paths.count == 2, "\(made.stdout)")
        #expect(
            made.lines.first?.hasPrefix("Made hook ") == true
                && made.lines.contains { $0.hasPrefix("  http://127.0.0.1:\(port)/v1/hooks/") })
        #expect(made.stdout.contains("CI  by @alice, never used") && made.stdout.contains("GitHub  by @alice, never used, signed"))
        let (ci, github) = (paths[0], paths[1])

        // Plain text, Slack's JSON (curl's default form type too), a redelivery once.
        #expect(try await Self.post(port, ci, "build 123 passed", headers: ["Content-Type": "text/plain"]).text == "ok")
        let slack =
            #"{"text":"deploy <https://ci.example/7|#7> done &amp; dusted","username":"deploybot","attachments":[{"title":"env","fields":[{"title":"region","value":"eu-1"}]}]}"#
        #expect(try await Self.post(port, ci, slack, headers: ["Content-Type": "application/x-www-form-urlencoded"]).status == 200)
        let alert = """
            {"version":"4","status":"firing","receiver":"parley","groupLabels":{"alertname":"HighLatency"},
             "commonLabels":{"alertname":"HighLatency"},"externalURL":"http://am.example:9093",
             "alerts":[{"status":"firing","labels":{"alertname":"HighLatency","instance":"api-1"},"annotations":{"summary":"p99 above 500 ms"}}]}
            """
        #expect(try await Self.post(port, ci, alert, headers: ["Content-Type": "application/json"]).status == 200)

        // GitHub, signed: a right signature posts once however often it is redelivered;
        // a wrong or missing one is refused and posts nothing.
        let push =
            #"{"ref":"refs/heads/main","commits":[{}],"head_commit":{"message":"Fix the build\n\nmore"},"pusher":{"name":"octocat"},"repository":{"full_name":"acme/widget"}}"#
        let mac = HMAC<SHA256>.authenticationCode(for: Data(push.utf8), using: SymmetricKey(data: Data("octo-secret".utf8)))
        let signature = "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
        let signed = [
            "X-GitHub-Event": "push", "X-GitHub-Delivery": "d-1", "X-Hub-Signature-256": signature, "Content-Type": "application/json",
        ]
        #expect(try await Self.post(port, github, push, headers: signed).status == 200)
        #expect(try await Self.post(port, github, push, headers: signed).status == 200, "a redelivery is answered, and lands once")
        var forged = signed
        forged["X-Hub-Signature-256"] = "sha256=" + String(repeating: "0", count: 64)
        let wrong = try await Self.post(port, github, push, headers: forged)
        #expect(wrong.status == 401 && wrong.text.contains("bad_signature"))
        forged["X-Hub-Signature-256"] = nil
        #expect(try await Self.post(port, github, push, headers: forged).status == 401)

        // Refusals: an unknown token like a revoked one, a body over the bound, no text.
        let unknown = try await Self.post(port, "/v1/hooks/not-a-real-token", "hi")
        #expect(unknown.status == 404 && unknown.text.contains("unknown_hook"))
        let big = try await Self.post(port, ci, String(repeating: "x", count: 8 * 1024 + 1))
        #expect(big.status == 413 && big.text.contains("body_too_large"))
        #expect(try await Self.post(port, ci, #"{"text": "   "}"#).status == 400)
        #expect(try await Self.post(port, ci, #"{"text": [1, {"deep": "#).status == 400)

        let history = try await bob.run("/history #swift 20")
        let lines = history.lines.map { $0.replacingOccurrences(of: #"\[\d\d:\d\d\] "#, with: "", options: .regularExpression) }
        #expect(lines.contains("2. #swift <CI (hook)> build 123 passed"), "\(lines)")
        #expect(lines.contains("3. #swift <deploybot (CI hook)> deploy #7 (https://ci.example/7) done & dusted"), "\(lines)")
        #expect(history.stdout.contains("env\n") && history.stdout.contains("region: eu-1"), "\(history.stdout)")
        #expect(history.stdout.contains("<CI (hook)> [FIRING:1] HighLatency\n"), "\(history.stdout)")
        #expect(history.stdout.contains("• HighLatency [instance=api-1]: p99 above 500 ms"))
        #expect(lines.last == "5. #swift <GitHub (hook)> octocat pushed 1 commit to acme/widget:main: Fix the build", "\(lines)")
        let json = try await bob.run("/history #swift 1", arguments: ["--json"])
        #expect(json.stdout.contains(#""via":{"kind":"hook","name":"GitHub"}"#), "\(json.stdout)")
        #expect(json.stdout.contains(#""handle":"alice""#), "the hook's maker is named in the JSON: \(json.stdout)")

        // The rate: 2 a second in bursts of 8; past them, 429 with Retry-After.
        // Posted as fast as one client can, a 429 must come (bounded, so a machine too
        // slow to outrun two a second ends the loop rather than the test's time).
        var limited: RawHTTP.Response?
        for number in 0..<400 where limited == nil {
            let answer = try await Self.post(port, ci, "burst \(number)")
            if answer.status != 200 { limited = answer }
        }
        #expect(limited?.status == 429 && limited?.headers["retry-after"] == "1" && limited?.text.contains("rate_limited") == true)

        // Revoked: the same 404 as a token never made; bob, not an admin, cannot see or make hooks.
        let listed = try await alice.run("/hooks #swift")
        let id = try #require(listed.lines.dropFirst().first?.split(separator: " ").first.map(String.init))
        #expect(try await alice.run("/hook revoke \(id) #swift").status == 0)
        let revoked = try await Self.post(port, ci, "after")
        #expect(revoked.status == 404 && revoked.text == unknown.text, "\(revoked.text) / \(unknown.text)")
        let refused = try await bob.run("/hooks #swift")
        #expect(refused.status != 0 && refused.stderr.contains("forbidden"), "\(refused.stderr)")
    }
}
