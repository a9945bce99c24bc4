import Foundation
import ParleyTesting
import Testing

/// Outgoing hooks can't be aimed at the server's own machine or network: under
/// `--hook-allow '*'` every spelling of a loopback, private, link-local or metadata
/// address, and names that resolve to one, are refused (when made, or when called,
/// before any connection), while an endpoint that drips its answer is cut at the 5 s
/// deadline. The server resolves names in a mount namespace whose /etc/hosts the test
/// writes (`ServeProcess.start(hosts:)`).
@Suite(.timeLimit(.minutes(10))) struct OutgoingHookSSRFTests {
    /// Listens on 127.0.0.1 and ::1 on one port, and prints a line for each request.
    static let listener = #"""
        import socket, sys, threading
        # A free port on 127.0.0.1 may be taken on ::1: pick again until both are ours.
        while True:
            v4 = socket.socket(socket.AF_INET); v4.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); v4.bind(('127.0.0.1', 0)); v4.listen(64)
            port = v4.getsockname()[1]
            v6 = socket.socket(socket.AF_INET6); v6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                v6.bind(('::1', port)); v6.listen(64); break
            except OSError:
                v4.close(); v6.close()
        drip = socket.socket(socket.AF_INET); drip.bind(('127.0.0.1', 0)); drip.listen(8)
        print(port, drip.getsockname()[1], flush=True)
        def serve(server):
            while True:
                conn, _ = server.accept()
                print('request', flush=True)
                conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 21\r\n\r\n{"text":"i was hit"}\n'); conn.close()
        def dripping(conn):
            import time
            try:
                conn.recv(65536)
                conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n')
                for _ in range(120):
                    conn.sendall(b' '); time.sleep(2)
            except OSError:
                print('drip cut', flush=True)
        def drips():
            while True:
                conn, _ = drip.accept()
                threading.Thread(target=dripping, args=(conn,), daemon=True).start()
        for target, arg in ((serve, v4), (serve, v6)):
            threading.Thread(target=target, args=(arg,), daemon=True).start()
        threading.Thread(target=drips, daemon=True).start()
        sys.stdin.read()
        """#

    @Test func everySpellingOfThisMachineIsRefusedAndADripIsCut() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-ssrf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("listener.py")
        try Self.listener.write(to: script, atomically: true, encoding: .utf8)
        let listener = try ChildProcess("/usr/bin/env", ["python3", script.path], stdin: .pipe, stdout: .pipe)
        defer {
            kill(listener.processIdentifier, SIGKILL)
            listener.waitUntilExit()
        }
        let pipe = try #require(listener.output)
        // Its first line, however it arrives.
        var first = ""
        while !first.contains("\n") {
            let chunk = pipe.availableData
            if chunk.isEmpty { break }
            first += String(decoding: chunk, as: UTF8.self)
        }
        let ports = (first.split(separator: "\n").first ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        try #require(ports.count == 2, "the listener did not start: \(ports)")
        let (port, dripPort) = (ports[0], ports[1])
        // Names only this server's resolver knows, in a mount namespace of its own.
        let hosts = folder.appendingPathComponent("hosts")
        try "127.0.0.1 localhost\n127.0.0.1 evil.test\n::1 evil6.test\n10.0.0.7 intranet.test\n".write(
            to: hosts, atomically: true, encoding: .utf8)
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("data"), arguments: ["--hook-allow", "*"], hosts: hosts)
        defer { server.stop() }
        let alice = ParleyBinary(serverURL: server.url)
        defer { alice.remove() }
        #expect(try await alice.run("/register alice@example.com --handle alice --password wonderland-1\n/create #ops").status == 0)

        let hostsForms = [
            "127.0.0.1", "127.1", "localhost", "[::1]", "0x7f000001", "2130706433", "0177.0.0.1", "0", "0x7f.1",
            "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:0:0:1]", "0xa9fea9fe", "169.254.169.254", "10.0.0.7",
            "[fd00:ec2::254]", "evil.test", "evil6.test", "intranet.test", "EVIL.test",
        ]
        var accepted: [String] = []
        for (index, host) in hostsForms.enumerated() {
            let made = try await alice.run("/hook out #ops --name h\(index) --url http://\(host):\(port)/x --trigger !go")
            if made.status == 0 {
                accepted.append("h\(index)")
            } else {
                #expect(made.stderr.contains("forbidden") || made.stderr.contains("invalid_argument"), "\(host): \(made.stderr)")
            }
        }
        // Malformed destinations are refused when made.
        for url in ["http://example.com:0/x", "http://example.com:99999/x", "http://.example.com/x", "http://a..b/x"] {
            let made = try await alice.run("/hook out #ops --name bad --url \(url) --trigger !go")
            #expect(made.status != 0, "\(url) was accepted")
        }
        // Those accepted by their text are refused when called, before any connection:
        // each one's failure is the event the test waits for.
        #expect(try await alice.run("/send #ops !go now").status == 0)
        let listed = try await OutgoingHookScriptTests.poll {
            try await alice.run("/hooks #ops").stdout
        } until: { text in
            text.components(separatedBy: "last failed").count - 1 >= accepted.count
        }
        #expect(!accepted.isEmpty && listed.components(separatedBy: "it was not called").count - 1 == accepted.count, "\(listed)")
        #expect(!listed.contains("could not be reached") && !listed.contains("HTTP "), "nothing tells what listens: \(listed)")
        let history = try await alice.run("/history #ops 5").stdout
        #expect(!history.contains("i was hit"), "no answer came back: \(history)")
        // The listener's first request is the test's own, made after every refusal.
        let control = try await rawExchange(port: Int(port)!, Array("GET / HTTP/1.0\r\n\r\n".utf8))
        #expect(control.answer.contains("i was hit"))
        var heard = ""
        while !heard.contains("request"), case let chunk = pipe.availableData, !chunk.isEmpty {
            heard += String(decoding: chunk, as: UTF8.self)
        }
        #expect(heard.components(separatedBy: "request").count - 1 == 1, "only the test's own request reached it: \(heard)")

        // A drip: headers, then a byte every 2 s. Allowed here (loopback), it is cut at
        // the deadline, and its failure reads as any failure does.
        let dripServer = try await ServeProcess.start(
            data: folder.appendingPathComponent("drip-data"), arguments: ["--hook-allow-loopback"])
        defer { dripServer.stop() }
        let bob = ParleyBinary(serverURL: dripServer.url)
        defer { bob.remove() }
        #expect(try await bob.run("/register bob@example.com --handle bob --password builder-123\n/create #drip").status == 0)
        try #require(try await bob.run("/hook out #drip --name drip --url http://127.0.0.1:\(dripPort)/x --trigger !go").status == 0)
        #expect(try await bob.run("/send #drip !go").status == 0)
        let failed = try await OutgoingHookScriptTests.poll {
            try await bob.run("/hooks #drip").stdout
        } until: {
            $0.contains("last failed")
        }
        #expect(failed.contains("the endpoint did not take the call (no 2xx answer within 5 s)"), "\(failed)")
        // Each attempt was cut by the server (a drip's 240 s would outlast the test).
        var dripped = ""
        while dripped.components(separatedBy: "drip cut").count - 1 < 3, case let chunk = pipe.availableData, !chunk.isEmpty {
            dripped += String(decoding: chunk, as: UTF8.self)
        }
        #expect(dripped.components(separatedBy: "drip cut").count - 1 == 3, "\(dripped)")
    }
}
