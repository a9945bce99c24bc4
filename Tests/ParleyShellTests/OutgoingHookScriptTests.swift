import Foundation
import ParleyTesting
import Testing

/// An outgoing hook through the binary: a small HTTP endpoint (Python's http.server)
/// answers `!deploy` in a group; made slow or failing, the group still talks and the
/// failures show in `/hooks`.
@Suite(.timeLimit(.minutes(10))) struct OutgoingHookScriptTests {
    /// Checks each call's signature with the secret in the file it is given, and answers.
    static let endpoint = #"""
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from hashlib import sha256
        from hmac import compare_digest, new as hmac_new
        from json import dumps, loads
        from sys import argv
        from time import sleep
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers['Content-Length']))
                secret = open(argv[1]).read().strip().encode()
                expected = 'sha256=' + hmac_new(secret, body, sha256).hexdigest()
                signed = compare_digest(expected, self.headers.get('X-Parley-Signature-256', ''))
                words = loads(body)['message']['text'].split()
                if words[-1] == 'slow':
                    sleep(7)
                if words[-1] == 'fail':
                    self.send_response(500); self.end_headers(); return
                answer = dumps({'text': 'deploying %s (signed: %s)' % (words[-1], signed)}).encode()
                try:
                    self.send_response(200); self.send_header('Content-Length', str(len(answer))); self.end_headers()
                    self.wfile.write(answer)
                except BrokenPipeError:
                    pass
            def log_message(self, *args): pass
        server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#

    /// Runs `read` until what it reads passes `done` (at most 5 minutes), and returns it.
    static func poll(_ read: () async throws -> String, until done: (String) -> Bool) async throws -> String {
        var text = try await read()
        let deadline = Date().addingTimeInterval(300)
        while !done(text), Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
            text = try await read()
        }
        return text
    }

    @Test func anEndpointAnswersDeployAndASlowOrFailingOneStopsNobody() async throws {
        let world = try await IRCGatewayTests.world(arguments: ["--hook-allow-loopback"])
        defer { world.remove() }
        let (alice, bob) = (world.alice, world.bob)
        #expect(try await bob.run("/join #swift").status == 0)
        let script = world.folder.appendingPathComponent("endpoint.py")
        let secretFile = world.folder.appendingPathComponent("secret")
        try Self.endpoint.write(to: script, atomically: true, encoding: .utf8)
        try "not yet".write(to: secretFile, atomically: true, encoding: .utf8)
        let endpoint = try ChildProcess("/usr/bin/env", ["python3", script.path, secretFile.path], stdout: .pipe)
        defer {
            // SIGKILL: a SIGTERM left it running (the test process's blocked signals are inherited).
            kill(endpoint.processIdentifier, SIGKILL)
            endpoint.waitUntilExit()
        }
        let pipe = try #require(endpoint.output)
        let port = try #require(String(decoding: pipe.availableData, as: UTF8.self).split(separator: "\n").first)
        let made = try await alice.run("/hook out #swift --name deploy --url http://127.0.0.1:\(port)/hook --trigger !deploy")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.contains("messages in #swift that start with !deploy are posted to http://127.0.0.1:\(port)/hook"))
        let secret = try #require(made.lines.last?.trimmingCharacters(in: .whitespaces))
        try secret.write(to: secretFile, atomically: true, encoding: .utf8)

        // bob asks; the hook's answer comes back as its reply, and the call was signed.
        #expect(try await bob.run("/send #swift !deploy v1").status == 0)
        // The answer may come before a /wait would start: the history is read until it does.
        let answered = try await Self.poll {
            try await alice.run("/history #swift 2").stdout
        } until: {
            $0.contains("deploying v1")
        }
        #expect(answered.contains("<deploy (hook)> deploying v1 (signed: True)"), "\(answered)")
        #expect(answered.contains("↳ @bob: !deploy v1"))

        // Slow (7 s, past the 5 s timeout) and failing (500): the group talks meanwhile.
        #expect(try await bob.run("/send #swift !deploy slow\n/send #swift !deploy fail\n/send #swift meanwhile").status == 0)
        let talked = try await Self.poll {
            try await alice.run("/history #swift 3").stdout
        } until: {
            $0.contains("<bob> meanwhile")
        }
        #expect(talked.contains("<bob> meanwhile"), "the group talks while the hook is slow or failing")
        let hooks = try await Self.poll {
            try await alice.run("/hooks #swift").stdout
        } until: {
            $0.contains("last failed")
        }
        #expect(hooks.contains("out: !deploy → http://127.0.0.1:\(port)/hook"), "\(hooks)")
        #expect(hooks.contains("the endpoint did not take the call (no 2xx answer within 5 s)"), "\(hooks)")
        let refused = try await alice.run("/hook out #swift --name evil --url http://10.1.2.3/x --trigger !x")
        #expect(refused.status != 0 && refused.stderr.contains("forbidden"), "a host the operator did not allow")
    }
}
