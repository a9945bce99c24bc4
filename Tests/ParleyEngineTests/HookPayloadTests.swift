import Foundation
import ParleyCore
import Testing

/// What each tool's payload reads as, and hostile payloads refused with a code.
@Suite(.timeLimit(.minutes(10))) struct HookPayloadTests {
    static func text(_ json: String, github: String? = nil, type: String? = "application/json") throws -> String {
        try HookPayload.post(body: Array(json.utf8), contentType: type, githubEvent: github).text
    }

    @Test func slackTextAttachmentsAndBlocks() throws {
        #expect(
            try Self.text(#"{"text":"hi <@U1> and <!here>: <https://x.example/a?b=1&amp;c=2|the run> &lt;3"}"#)
                == "hi @U1 and @here: the run (https://x.example/a?b=1&c=2) <3")
        let attachments =
            #"{"attachments":[{"fallback":"only fallback"},{"pretext":"Deploy","title":"api","text":"done","fields":[{"title":"env","value":"prod"},{"value":7}]}]}"#
        #expect(try Self.text(attachments) == "only fallback\nDeploy\napi\ndone\nenv: prod\n7")
        let blocks =
            #"{"blocks":[{"type":"header","text":{"type":"plain_text","text":"Release"}},{"type":"section","text":{"type":"mrkdwn","text":"*v2* is out"},"fields":[{"type":"mrkdwn","text":"a"}]},{"type":"context","elements":[{"type":"mrkdwn","text":"by ci"}]},{"type":"divider"}]}"#
        #expect(try Self.text(blocks) == "Release\n*v2* is out\na\nby ci")
        let named = try HookPayload.post(body: Array(#"{"text":"x","username":"a\nb"}"#.utf8), contentType: nil, githubEvent: nil)
        #expect(named.username == "a b")
        // Slack's older form post: payload=<url-encoded JSON>.
        let form = "payload=" + (#"{"text":"from a form"}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        #expect(try Self.text(form, type: "application/x-www-form-urlencoded") == "from a form")
    }

    @Test func alertmanagerFiringAndResolved() throws {
        let firing = """
            {"version":"4","status":"firing","groupLabels":{"alertname":"DiskFull"},"commonLabels":{"alertname":"DiskFull","severity":"page"},
             "externalURL":"http://am:9093","alerts":[
              {"status":"firing","labels":{"alertname":"DiskFull","instance":"db-1","severity":"page"},"annotations":{"summary":"/var at 97%"}},
              {"status":"resolved","labels":{"alertname":"DiskFull","instance":"db-2"},"annotations":{"description":"fine now"}}]}
            """
        #expect(
            try Self.text(firing)
                == "[FIRING:1] DiskFull (1 resolved)\n• DiskFull [instance=db-1, severity=page]: /var at 97%\n• DiskFull (resolved) [instance=db-2]: fine now\nhttp://am:9093"
        )
        let resolved =
            #"{"status":"resolved","alerts":[{"status":"resolved","labels":{"alertname":"Up"}}],"commonLabels":{"alertname":"Up"}}"#
        #expect(try Self.text(resolved) == "[RESOLVED] Up\n• Up")
        let many =
            #"{"status":"firing","alerts":["#
            + Array(repeating: #"{"status":"firing","labels":{"alertname":"A"}}"#, count: 25).joined(separator: ",") + "]}"
        let lines = try Self.text(many).split(separator: "\n")
        #expect(lines.count == 22 && lines.first == "[FIRING:25] 25 alerts" && lines.last == "… and 5 more")
    }

    @Test func gitHubEventsInOneLine() throws {
        let repo = #""repository":{"full_name":"acme/w"},"sender":{"login":"octo"}"#
        #expect(
            try Self.text(
                #"{"action":"opened","number":5,"pull_request":{"title":"Add X","html_url":"https://gh/p/5"},"# + repo + "}",
                github: "pull_request")
                == "octo opened pull request #5 in acme/w: Add X <https://gh/p/5>")
        #expect(
            try Self.text(
                #"{"action":"closed","number":5,"pull_request":{"title":"Add X","merged":true},"# + repo + "}", github: "pull_request")
                == "octo merged pull request #5 in acme/w: Add X")
        #expect(
            try Self.text(#"{"action":"opened","issue":{"number":9,"title":"Bug"},"# + repo + "}", github: "issues")
                == "octo opened issue #9 in acme/w: Bug")
        #expect(
            try Self.text(
                #"{"action":"completed","workflow_run":{"name":"CI","conclusion":"failure","head_branch":"main"},"# + repo + "}",
                github: "workflow_run")
                == "CI failure on main in acme/w")
        #expect(try Self.text(#"{"ref":"refs/heads/dev","deleted":true,"# + repo + "}", github: "push") == "octo deleted dev in acme/w")
        #expect(try Self.text(#"{"action":"created",\#(repo)}"#, github: "star") == "GitHub star (created) in acme/w by octo")
        #expect(try Self.text(#"{"zen":"line\none"}"#, github: "ping") == "GitHub hook for a repository is set up: line one")
    }

    @Test func hostilePayloadsAreRefusedOrCut() throws {
        let refusals: [(String, String?, ErrorCode)] = [
            (#"{"text": "  "}"#, "application/json", .emptyText),
            ("", "text/plain", .emptyText),
            (#"{"text": "#, "application/json", .invalidArgument),
            (#"["text"]"#, "application/json", .invalidArgument),
            (String(repeating: "[", count: 100_000), "application/json", .invalidArgument),
            (#"{"text": {"nested": true}}"#, nil, .emptyText),
            ("payload=%zz", "application/x-www-form-urlencoded", .invalidArgument),
        ]
        for (body, type, code) in refusals {
            #expect(throws: ParleyError.self, "\(body.prefix(20))") {
                try HookPayload.post(body: Array(body.utf8), contentType: type, githubEvent: nil)
            }
            do { _ = try HookPayload.post(body: Array(body.utf8), contentType: type, githubEvent: nil) } catch {
                #expect(error.code == code, "\(body.prefix(20))")
            }
        }
        #expect(throws: ParleyError.self) { try HookPayload.post(body: [0x68, 0xC0, 0xAF], contentType: "text/plain", githubEvent: nil) }
        let long = try Self.text(String(repeating: "é", count: 9000), type: "text/plain")
        #expect(long.count == Limits.maxTextLength && long.hasSuffix(" … (cut)"))
    }
}
