import Foundation
import ParleyTesting
import Testing

/// `parley serve --tls-cert --tls-key` with a certificate the test makes: the shell
/// signs in over `wss://` and moves an image over `https://` when it trusts the
/// certificate (`--ca-file`), and is refused, saying why, when it does not.
@Suite(.timeLimit(.minutes(10)))
struct TLSScriptTests {
    /// A self-signed certificate for `localhost`, made with the openssl command.
    static func certificate(in folder: URL) throws -> (certificate: String, key: String) {
        let (certificate, key) = (folder.appendingPathComponent("cert.pem").path, folder.appendingPathComponent("key.pem").path)
        let openssl = try ChildProcess(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", certificate,
            ])
        openssl.waitUntilExit()
        #expect(openssl.terminationStatus == 0, "making a certificate needs the openssl command (Debian: apt-get install openssl)")
        return (certificate, key)
    }

    @Test func aShellTrustingTheCertificateChatsAndSendsMediaOverTLSAndOneThatDoesNotIsRefused() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try Self.certificate(in: folder)
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("server"), arguments: ["--tls-cert", certificate, "--tls-key", key])
        defer { server.stop() }
        #expect(server.url.hasPrefix("wss://127.0.0.1:"), "\(server.url)")
        // The certificate names localhost, and the shell checks the name.
        let url = server.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")

        let ann = ParleyBinary(serverURL: url)
        defer { ann.remove() }
        let png = SampleMedia.png(width: 6, height: 4) { x, y in [UInt8(x * 40), UInt8(y * 60), 200, 255] }
        try FileManager.default.createDirectory(at: ann.data, withIntermediateDirectories: true)
        let picture = ann.data.appendingPathComponent("picture.png")
        try png.write(to: picture)
        let saved = ann.data.appendingPathComponent("saved.png")
        let trusted = try await ann.run(
            """
            /register ann@example.com --handle ann --password secret-ann
            /create #secure
            /image #secure \(picture.path) over TLS
            /save #secure 1 \(saved.path)
            """, arguments: ["--ca-file", certificate])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(trusted.lines.contains { $0.hasSuffix("<ann> [image PNG 6×4 \(png.count) B] over TLS") }, "\(trusted.lines)")
        #expect(try Data(contentsOf: saved) == png, "the image came back over https:// byte for byte")

        let bob = ParleyBinary(serverURL: url)
        defer { bob.remove() }
        let untrusted = try await bob.run("/register bob@example.com --handle bob --password secret-bob")
        #expect(untrusted.status == 1)
        #expect(
            untrusted.stderr.contains("error: unavailable: cannot reach \(url): the server's certificate is not trusted")
                && untrusted.stderr.contains("--ca-file"), "\(untrusted.stderr)")
        let plainShell = ParleyBinary(serverURL: url.replacingOccurrences(of: "wss://", with: "ws://"))
        defer { plainShell.remove() }
        let plain = try await plainShell.run("/register bob@example.com --password secret-bob")
        #expect(plain.status == 1 && plain.stderr.contains("wss://"), "\(plain.stderr)")
        let missing = try await bob.run("/whoami", arguments: ["--ca-file", folder.appendingPathComponent("none.pem").path])
        #expect(missing.status != 0 && missing.stderr.contains("--ca-file"), "\(missing.stderr)")
    }

    /// `--ircs-port`: an IRC client that checks the certificate signs in over TLS and
    /// talks with a shell user; plain IRC stays off unless asked for.
    @Test func anIRCClientTalksOverTLS() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-ircs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try Self.certificate(in: folder)
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("server"),
            arguments: ["--tls-cert", certificate, "--tls-key", key, "--ircs-port", "0", "--ping-timeout", "600"])
        defer { server.stop() }
        #expect(server.ircPort == nil)
        let port = try #require(server.ircsPort)
        let ann = ParleyBinary(serverURL: server.url.replacingOccurrences(of: "127.0.0.1", with: "localhost"))
        defer { ann.remove() }
        let made = try await ann.run(
            """
            /register ann@example.com --handle ann --password secret-ann
            /create #secure
            """, arguments: ["--ca-file", certificate])
        #expect(made.status == 0, "\(made.stderr)")
        // Python's ssl module as the client: it checks the chain and the name.
        let client = """
            socket, ssl, sys = map(__import__, ["socket", "ssl", "sys"])
            context = ssl.create_default_context(cafile=sys.argv[1])
            with context.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[2]))), server_hostname="localhost") as s:
                s.sendall(b"PASS ann:secret-ann\\r\\nNICK ann\\r\\nUSER ann 0 * :Ann\\r\\nJOIN #secure\\r\\n")
                seen = b""
                while b" 366 ann #secure " not in seen:
                    chunk = s.recv(4096)
                    if not chunk: break
                    seen += chunk
                s.sendall(b"PRIVMSG #secure :hello over TLS\\r\\nQUIT :done\\r\\n")
                while chunk:
                    chunk = s.recv(4096)
                    seen += chunk
                sys.stdout.write(seen.decode())
            """
        let python = try ChildProcess("/usr/bin/env", ["python3", "-c", client, certificate, String(port)], stdout: .pipe)
        let output = String(decoding: python.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        python.waitUntilExit()
        #expect(python.terminationStatus == 0 && output.contains(" 001 ann "), "\(output)")
        let history = try await ann.run("/history #secure 5", arguments: ["--ca-file", certificate])
        #expect(history.stdout.contains("hello over TLS"), "\(history.stdout)")
    }

    /// The SHA-256 of the certificate a local TLS port serves, or of a PEM file's first.
    static func fingerprint(port: Int? = nil, file: String? = nil) throws -> String {
        let script = """
            import hashlib, ssl, sys
            kind, where = sys.argv[1], sys.argv[2]
            pem = ssl.get_server_certificate(("127.0.0.1", int(where))) if kind == "port" else open(where).read()
            print(hashlib.sha256(ssl.PEM_cert_to_DER_cert(pem)).hexdigest())
            """
        let arguments = port.map { ["port", String($0)] } ?? ["file", file ?? ""]
        let python = try ChildProcess("/usr/bin/env", ["python3", "-c", script] + arguments, stdout: .pipe)
        let output = String(decoding: python.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        python.waitUntilExit()
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// SIGHUP reads the certificate again: once it is replaced in place (a renewal), new
    /// connections over wss:// and ircs:// get the new one, and a shell connected under
    /// the old one stays connected.
    @Test func aReloadServesARenewedCertificateAndKeepsTheOpenConnections() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-renew-\(UUID().uuidString)")
        let renewal = folder.appendingPathComponent("renewal")
        try FileManager.default.createDirectory(at: renewal, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (certificate, key) = try Self.certificate(in: folder)
        let (renewed, renewedKey) = try Self.certificate(in: renewal)
        let (old, new) = (try Self.fingerprint(file: certificate), try Self.fingerprint(file: renewed))
        #expect(old.count == 64 && new.count == 64 && old != new)
        // The shell trusts both, as a client trusting the authority would.
        let trust = folder.appendingPathComponent("trust.pem").path
        try (try String(contentsOfFile: certificate, encoding: .utf8) + (try String(contentsOfFile: renewed, encoding: .utf8))).write(
            toFile: trust, atomically: true, encoding: .utf8)
        let log = folder.appendingPathComponent("server.log")
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("server"), arguments: ["--tls-cert", certificate, "--tls-key", key, "--ircs-port", "0"],
            logLevel: "notice", log: log)
        defer { server.stop() }
        let ircs = try #require(server.ircsPort)
        #expect(try Self.fingerprint(port: server.port) == old && (try Self.fingerprint(port: ircs)) == old)

        let ann = ParleyBinary(serverURL: server.url.replacingOccurrences(of: "127.0.0.1", with: "localhost"))
        defer { ann.remove() }
        let made = try await ann.run(
            "/register ann@example.com --handle ann --password secret-ann\n/create #renewal", arguments: ["--ca-file", trust])
        #expect(made.status == 0, "\(made.stderr)")
        let shell = try ann.converse(keepGoing: true, arguments: ["--ca-file", trust])
        defer { shell.finish() }
        try await shell.send("/switch #renewal")
        #expect(try await shell.waitForLine(containing: "Now in #renewal") != nil)

        // The renewal writes the files in place; SIGHUP reads them again.
        try FileManager.default.removeItem(atPath: certificate)
        try FileManager.default.removeItem(atPath: key)
        try FileManager.default.copyItem(atPath: renewed, toPath: certificate)
        try FileManager.default.copyItem(atPath: renewedKey, toPath: key)
        server.process.terminate(SIGHUP)
        let logged = try await ParleyBinaryWait.until {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.contains("reload: TLS certificate read again") ? text : nil
        }
        #expect(logged?.contains("reload: TLS certificate read again from \(certificate)") == true, "\(logged ?? "")")
        #expect(try Self.fingerprint(port: server.port) == new && (try Self.fingerprint(port: ircs)) == new)

        // The shell connected under the old certificate is still, and lost nothing.
        try await shell.send("/send #renewal after the renewal")
        var lines: [String] = []
        while let line = try await shell.waitForLine(containing: "") {
            lines.append(line)
            if line.contains("after the renewal") { break }
        }
        #expect(lines.last?.contains("after the renewal") == true && !lines.contains { $0.contains("[connection lost]") }, "\(lines)")
    }

    @Test func aCertificateNeedsItsKey() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let result = try await parley.run(arguments: ["serve", "--port", "0", "--tls-cert", "/nonexistent/cert.pem"])
        #expect(result.status != 0 && result.stderr.contains("--tls-cert and --tls-key go together"), "\(result.stderr)")
    }
}
