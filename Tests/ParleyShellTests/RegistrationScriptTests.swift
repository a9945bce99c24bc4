import Foundation
import ParleyTesting
import Testing

/// `parley serve --registration invite|closed` run as an operator would: the first
/// admin's code from the log, sign-up codes made in the shell, bots made by their owners.
@Suite(.timeLimit(.minutes(10)))
struct RegistrationScriptTests {
    @Test func anInviteOnlyServerThenAClosedOne() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-registration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("server")
        let log = folder.appendingPathComponent("serve.log")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var server = try await ServeProcess.start(
            data: data, arguments: ["--registration", "invite", "--admin", "@root"], logLevel: "info", log: log)
        let serverLog = try String(contentsOf: log, encoding: .utf8)
        #expect(serverLog.contains("registration: by invitation (sign-up codes from @root)"), "\(serverLog)")
        let firstCode = try #require(
            serverLog.firstMatch(of: /no admin account yet: .* --handle root --code ([a-z0-9]+)/)?.1, "\(serverLog)")

        let eve = ParleyBinary(serverURL: server.url)
        let (root, bob, carol) = (
            ParleyBinary(serverURL: server.url), ParleyBinary(serverURL: server.url), ParleyBinary(serverURL: server.url)
        )
        defer { for shell in [eve, root, bob, carol] { shell.remove() } }
        let refused = try await eve.run("/register eve@example.com --password secret-eve")
        #expect(
            refused.status != 0 && refused.stderr.contains("error: code_required: this server takes new accounts by invitation"),
            "\(refused.stderr)")

        let made = try await root.run(
            """
            /register root@example.com --handle root --password secret-root --code \(firstCode)
            /signup-code --uses 1 --expires 7d
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let code = try #require(made.lines.last?.firstMatch(of: #/^([a-z0-9]+) \(1 use left, expires /#)?.1, "\(made.lines)")
        let reused = try await eve.run("/register eve@example.com --password secret-eve --code \(firstCode)")
        #expect(reused.stderr.contains("error: invite_used_up:"), "\(reused.stderr)")

        let joined = try await bob.run(
            """
            /register bob@example.com --handle bob --password secret-bob --code \(code)
            /bots new @helper --name "Helper" --password helper-pass
            /whois @helper
            """)
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.lines.contains { $0.hasPrefix("@helper Helper [bot of @bob] — joined ") }, "\(joined.lines)")
        let second = try await carol.run("/register carol@example.com --password secret-carol --code \(code)")
        #expect(second.stderr.contains("error: invite_used_up:"), "\(second.stderr)")
        let notAdmin = try await bob.run("/signup-code --list")
        #expect(notAdmin.stderr.contains("error: forbidden: only the server's operators manage sign-up codes"), "\(notAdmin.stderr)")
        let listed = try await root.run("/signup-code --list")
        #expect(listed.lines == ["No sign-up codes can be used now"], "\(listed.lines)")

        // The same folder served closed: old accounts and their sessions carry on, and
        // their owners may still make bots; nobody new gets in, with a code or without.
        let spare = try await root.run("/signup-code")
        let spareCode = try #require(spare.lines.last?.split(separator: " ").first.map(String.init))
        server.stop()
        server = try await ServeProcess.start(
            data: data, port: server.port, arguments: ["--registration", "closed"], logLevel: "info", log: log)
        defer { server.stop() }
        let closed = try await carol.run("/register carol@example.com --password secret-carol --code \(spareCode)")
        #expect(closed.stderr.contains("error: registration_closed: this server takes no new accounts"), "\(closed.stderr)")
        let still = try await bob.run(
            """
            /whoami
            /bots new @second --password second-pass
            /bots
            """)
        #expect(still.status == 0, "\(still.stderr)")
        #expect(still.lines.first?.hasPrefix("@bob bob <bob@example.com>") == true, "\(still.lines)")
        #expect(still.lines.suffix(2) == ["@helper Helper [bot of @bob]", "@second second [bot of @bob]"], "\(still.lines)")
    }

    @Test func anInviteOnlyServerNeedsAnAdmin() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-registration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let parley = ParleyBinary(folder: folder)
        let result = try await parley.run(arguments: ["serve", "--port", "0", "--registration", "invite"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--registration invite needs at least one --admin @HANDLE"), "\(result.stderr)")
        let wrong = try await parley.run(arguments: ["serve", "--port", "0", "--registration", "sometimes"])
        #expect(wrong.status != 0 && wrong.stderr.contains("open"), "\(wrong.stderr)")
    }
}
