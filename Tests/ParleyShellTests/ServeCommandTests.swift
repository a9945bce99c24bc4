import Foundation
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct ServeCommandTests {
    /// SIGTERM stops `parley serve` gracefully: connected clients get a close frame
    /// (normal closure or going away), even one that never answers, and the process exits 0.
    @Test(.timeLimit(.minutes(10))) func sigtermClosesSocketsAndExitsCleanly() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let port = try #require(parley.serverURL.flatMap { URL(string: $0)?.port })
        #expect(try await httpGet(port: port, path: "/healthz") == "ok\n")
        let client = try SilentSocket(port: port)
        let status = try #require(parley.stopServer(signal: SIGTERM))
        let code = await client.readCloseCode()
        #expect(code == 1000 || code == 1001, "a close frame, not a dropped connection")
        #expect(status == 0)
    }

    /// `parley serve` is one group of services: on SIGTERM the server and its upkeep
    /// One address holding its most connections that have not signed in (3 here, IRC
    /// and WebSocket together) is refused another, with 429 over HTTP and an ERROR over
    /// IRC, while another address signs up and sends and `/healthz` answers; once one of
    /// Behind a reverse proxy named with `--trusted-proxy`, a WebSocket counts as the
    /// client its X-Forwarded-For names (the last address, the proxy's own word); from
    /// anyone else the header is the client's say-so and is ignored.
    @Test(.timeLimit(.minutes(10))) func aTrustedProxysClientsCountByTheirOwnAddress() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-proxy-\(UUID().uuidString)")
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("data"),
            arguments: ["--max-unsigned-per-address", "1", "--trusted-proxy", "127.0.0.3"])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        let ping = #"{"id": 1, "op": "ping"}"#
        let first = try SilentSocket(port: server.port, from: "127.0.0.3", headers: ["X-Forwarded-For: 203.0.113.9"])
        try first.sendText(ping)
        #expect(await first.readText()?.contains(#""ok":true"#) == true, "let in: the proxy's first client")
        let again = try SilentSocket(
            port: server.port, from: "127.0.0.3", headers: ["X-Forwarded-For: 198.51.100.1, 203.0.113.9"])
        #expect(await again.readCloseCode() == 1008, "the same client behind the proxy, past its one connection")
        let another = try SilentSocket(port: server.port, from: "127.0.0.3", headers: ["X-Forwarded-For: 203.0.113.10"])
        try another.sendText(ping)
        #expect(await another.readText()?.contains(#""ok":true"#) == true, "another client behind the same proxy")

        // Not a trusted proxy: counted by its own address whatever the header says.
        let direct = try SilentSocket(port: server.port, from: "127.0.0.2", headers: ["X-Forwarded-For: 203.0.113.11"])
        try direct.sendText(ping)
        #expect(await direct.readText()?.contains(#""ok":true"#) == true)
        let spoofed = try HeldConnection(port: server.port, from: "127.0.0.2")
        try spoofed.send(
            "GET /v1/ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-Forwarded-For: 203.0.113.12\r\n\r\n")
        #expect(spoofed.readToEnd().hasPrefix("HTTP/1.1 429 "))
        _ = (first, another, direct)
    }

    /// the held connections goes, the address gets in again.
    @Test(.timeLimit(.minutes(10))) func oneAddressCannotFillTheServer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-crowd-\(UUID().uuidString)")
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("data"), arguments: ["--max-unsigned-per-address", "3", "--irc-port", "0"])
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
        let ircPort = try #require(server.ircPort)
        // Three IRC connections from 127.0.0.2 that never sign in: each answers a PING,
        // so the server holds it before the next one comes.
        var crowd: [IRCTestClient] = []
        for index in 0..<3 {
            let held = try IRCTestClient(port: ircPort, from: "127.0.0.2")
            try held.send("PING held\(index)")
            #expect(await held.wait(containing: "PONG") != nil)
            crowd.append(held)
        }
        let refused = try HeldConnection(port: server.port, from: "127.0.0.2")
        try refused.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let answer = refused.readToEnd()
        #expect(answer.hasPrefix("HTTP/1.1 429 ") && answer.contains("Retry-After: 10"), "\(answer)")
        #expect(answer.contains("too many connections from your address"))
        let fourth = try IRCTestClient(port: ircPort, from: "127.0.0.2")
        #expect(await fourth.wait(containing: "ERROR :Closing link: too many connections from your address") != nil)

        // Another address is not held up.
        #expect(try await httpGet(port: server.port, path: "/healthz") == "ok\n")
        let shell = ParleyBinary(serverURL: server.url)
        defer { shell.remove() }
        let sent = try await shell.run(
            """
            /register dana@example.com --handle dana --password dana-secret-1
            /create #open
            /send #open still here
            """)
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.lines.contains { $0.hasSuffix("<dana> still here") }, "\(sent.lines)")

        // One held connection goes: its place is free again.
        crowd.removeLast()
        #expect(
            try await IRCGatewayTests.eventually {
                let again = try HeldConnection(port: server.port, from: "127.0.0.2")
                try again.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return again.readToEnd().hasPrefix("HTTP/1.1 200")
            })
        _ = crowd
    }

    /// stop, then the database closes, and the process exits 0 with the folder free.
    @Test(.timeLimit(.minutes(10))) func sigtermStopsTheServicesInOrder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-stop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("serve.log")
        let server = try await ServeProcess.start(data: folder.appendingPathComponent("data"), logLevel: "info", log: log)
        let shell = ParleyBinary(serverURL: server.url)
        defer { shell.remove() }
        #expect(try await shell.run("/register ann@example.com --handle ann --password pass-ann-1").status == 0)
        server.stop()
        #expect(server.process.terminationStatus == 0)
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let order = ["upkeep stopped", "database closed", "[ParleyCommands] stopped"].map { step in lines.firstIndex { $0.hasSuffix(step) }
        }
        #expect(order.allSatisfy { $0 != nil } && order == order.sorted { ($0 ?? 0) < ($1 ?? 0) }, "\(lines.suffix(6))")
        let again = try await ServeProcess.start(data: folder.appendingPathComponent("data"))
        again.stop()
    }

    /// `--log-format json`: every line of the log is one JSON object, and a request's
    /// line names its op, its user and, when refused, the error code.
    @Test(.timeLimit(.minutes(10))) func jsonLogsNameTheOpTheUserAndTheCode() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-json-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("serve.log")
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("data"), arguments: ["--log-format", "json"], logLevel: "debug", log: log)
        let shell = ParleyBinary(serverURL: server.url)
        defer { shell.remove() }
        let result = try await shell.run("/register ann@example.com --handle ann --password pass-ann-1\n/send #nowhere hello")
        #expect(result.stderr.contains("unknown_group"))
        server.stop()
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        let records = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] }
        #expect(records.count == lines.count && !lines.isEmpty, "every line is a JSON object of strings")
        #expect(records.allSatisfy { $0["time"]?.hasSuffix("Z") == true && $0["level"] != nil && $0["message"] != nil })
        #expect(records.contains { $0["message"] == "signed up @ann" && $0["op"] == "register" && $0["user"] == "1" }, "\(records)")
        #expect(records.contains { $0["op"] == "group" && $0["user"] == "1" && $0["code"] == "unknown_group" }, "\(records)")
        #expect(!lines.contains { $0.contains("pass-ann-1") }, "no password in the log")
    }

    /// One folder, one server: a second `parley serve` on it, or an embedded shell beside
    /// it, would write the same database with live sessions of its own. Both are refused
    /// and leave the folder as it was; and a server, or a second shell, is kept out while
    /// a shell has it open.
    @Test(.timeLimit(.minutes(10))) func aFolderIsServedByOneServerAndNoShellBesideIt() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let folder = parley.data.appendingPathComponent("server-data")
        let pid = try #require(parley.serverProcessID)
        let other = try await ParleyBinary()
        defer { other.remove() }

        let second = try await other.run(arguments: ["serve", "--port", "0", "--data", folder.path], useData: false)
        #expect(second.status != 0)
        #expect(
            second.stderr.contains("unavailable: the data folder \(folder.path) is already served by parley serve (pid \(pid))"),
            "\(second.stderr)")
        let shell = try await other.run(
            "/register ann@example.com --handle ann --name Ann --password pass-ann-1\n", arguments: ["--data", folder.path], useData: false)
        #expect(shell.status != 0)
        #expect(
            shell.stderr.contains("is served by parley serve (pid \(pid)); connect to it with --server \(parley.serverURL ?? "") instead"),
            "\(shell.stderr)")
        // The first server still answers, and nobody was registered behind its back.
        let port = try #require(parley.serverURL.flatMap { URL(string: $0)?.port })
        #expect(try await httpGet(port: port, path: "/healthz") == "ok\n")
        let registered = try await parley.run("/register ann@example.com --handle ann --name Ann --password pass-ann-1\n")
        #expect(registered.status == 0, "\(registered.stderr)")

        // Once it has stopped, a shell may open the folder; while the shell is open, no server.
        #expect(parley.stopServer(signal: SIGTERM) == 0)
        let embedded = try ParleyBinary(folder: folder).converse()
        try await embedded.send("/login @ann --password pass-ann-1")
        #expect(try await embedded.waitForLine(containing: "@ann") != nil)
        let refused = try await other.run(arguments: ["serve", "--port", "0", "--data", folder.path], useData: false)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("is open in another parley shell or bot (pid "), "\(refused.stderr)")
        // Nor a second shell: it would write the same chats and hear none of the first's.
        let beside = try await other.run("/whoami\n", arguments: ["--data", folder.path], useData: false)
        #expect(beside.status != 0)
        #expect(
            beside.stderr.contains("is open in another parley shell or bot (pid ")
                && beside.stderr.contains("two on one folder would not hear each other's messages")
                && beside.stderr.contains("parley serve --data \(folder.path)"), "\(beside.stderr)")
        embedded.finish()
        // Once it is closed, the next shell opens the folder.
        let after = try await other.run("/login @ann --password pass-ann-1\n", arguments: ["--data", folder.path], useData: false)
        #expect(after.status == 0, "\(after.stderr)")
        let (again, _) = try await ParleyBinary.startServer(data: folder)
        again.terminate()
        again.waitUntilExit()
    }

    /// A port in use is named, with what to do about it, instead of a bind errno.
    /// `--threads` sets how many event loops serve the sockets: two shells on a server
    /// with three chat through it, and a count out of range is refused before anything
    /// starts.
    @Test(.timeLimit(.minutes(10))) func threadsSetsTheEventLoops() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-threads-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(data: folder.appendingPathComponent("data"), arguments: ["--threads", "3"])
        defer { server.stop() }
        let ann = ParleyBinary(serverURL: server.url)
        let ben = ParleyBinary(serverURL: server.url)
        defer {
            ann.remove()
            ben.remove()
        }
        #expect(try await ann.run("/register ann@example.com --handle ann --password pass-ann-1").status == 0)
        #expect(try await ben.run("/register ben@example.com --handle ben --password pass-ben-1").status == 0)
        #expect(try await ann.run("/send @ben hello over three loops").status == 0)
        let read = try await ben.run("/history @ann")
        #expect(read.stdout.contains("hello over three loops"), "\(read.stdout)")
        for wrong in ["0", "257", "many"] {
            let refused = try await ann.run(arguments: ["serve", "--port", "0", "--threads", wrong])
            #expect(refused.status != 0, "--threads \(wrong)")
            #expect(refused.stderr.contains("--threads"), "\(refused.stderr)")
        }
    }

    @Test(.timeLimit(.minutes(10))) func aBusyPortIsNamedWithWhatToDo() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let port = try #require(parley.serverURL.flatMap { URL(string: $0)?.port })
        let other = try await ParleyBinary()
        defer { other.remove() }
        let refused = try await other.run(
            arguments: ["serve", "--port", String(port), "--data", other.data.appendingPathComponent("elsewhere").path], useData: false)
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains("unavailable: 127.0.0.1:\(port) is already in use (another parley serve, or another program?)"),
            "\(refused.stderr)")
        #expect(!refused.stderr.contains("errno"))
    }

    /// A PostgreSQL that cannot be reached, a database that does not exist and a URL that
    /// is not one each stop `parley serve` at once with `unavailable`, saying which, and
    /// never echo a password.
    @Test(.timeLimit(.minutes(10))) func aDatabaseOutOfReachStopsTheServerWithUnavailable() async throws {
        let postgres = try TestPostgres.shared()
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let cases = [
            (
                "postgres://parley:hunter22@127.0.0.1:1/parley",
                "unavailable: cannot reach PostgreSQL at postgres://parley@127.0.0.1:1/parley"
            ),
            (
                "postgres://parley@127.0.0.1:\(postgres.port)/nosuchdb",
                "unavailable: cannot reach PostgreSQL at postgres://parley@127.0.0.1:\(postgres.port)/nosuchdb: database \"nosuchdb\" does not exist"
            ),
            (
                "mysql://parley:hunter22@127.0.0.1/parley",
                "unavailable: --postgres mysql://parley@127.0.0.1/parley: the scheme must be postgres://"
            ),
            ("postgres://127.0.0.1:5432/parley", "unavailable: --postgres postgres://127.0.0.1:5432/parley: no user"),
            ("postgres://parley@127.0.0.1:5432/", "no database name"),
        ]
        for (url, said) in cases {
            let refused = try await parley.run(arguments: ["serve", "--port", "0", "--postgres", url])
            #expect(refused.status == 1, "\(url)")
            #expect(refused.stderr.contains(said), "\(url): \(refused.stderr)")
            #expect(!refused.stderr.contains("hunter22"))
            #expect(!refused.stdout.contains("listening"))
        }
    }

    /// On PostgreSQL a sign-out is told to the other nodes. The node it came from must
    /// not take its own notice back and end the connection, which has signed in again
    /// meanwhile: a script of ten `/login`s on one connection, each signing the last
    /// session out, keeps it (before this held, 2 of 5 such logins lost it).
    @Test(.timeLimit(.minutes(10))) func signingInAgainOnOneConnectionKeepsItOnPostgreSQL() async throws {
        let database = try TestPostgres.newDatabase()
        let parley = try await ParleyBinary(mode: .server, serverArguments: ["--postgres", database])
        defer { parley.remove() }
        let logins = (1...10).map { "/login @ann --password secret-ann-1\n/send #lobby round \($0)\n" }.joined()
        let result = try await parley.run("/register ann@example.com --handle ann --password secret-ann-1\n/create #lobby\n" + logins)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.filter { $0.contains("#lobby <ann> round ") }.count == 10, "\(result.stdout)")
    }

    /// An operator sees sign-ups, sign-ins, refusals and connections in the log, with
    /// addresses and reasons, and never a password.
    @Test(.timeLimit(.minutes(10))) func theLogShowsAccountsAndConnectionsWithoutSecrets() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let log = parley.data.appendingPathComponent("serve.log")
        try FileManager.default.createDirectory(at: parley.data, withIntermediateDirectories: true)
        let server = try await ServeProcess.start(data: parley.data.appendingPathComponent("server-data"), logLevel: "info", log: log)
        let script = """
            /register ann@example.com --handle ann --password secret-ann-1
            /logout
            /login @ann --password wrong-password-9
            """
        let result = try await parley.run(script + "\n", arguments: ["--server", server.url, "--keep-going"])
        #expect(result.status == 1, "the wrong password fails")
        server.stop()
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(text.contains("signed up @ann"), "\(text)")
        #expect(text.contains("sign_in refused: bad_credentials"), "\(text)")
        #expect(text.contains("connection opened") && text.contains("connection closed: "), "\(text)")
        #expect(text.contains("address=127.0.0.1"), "\(text)")
        #expect(!text.contains("secret-ann-1") && !text.contains("wrong-password-9"))
    }
}
