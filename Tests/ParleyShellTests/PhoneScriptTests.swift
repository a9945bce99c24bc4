import Foundation
import Testing

@Suite(.timeLimit(.minutes(10))) struct PhoneScriptTests {
    /// Embedded, the development sender shows the code in the shell's output.
    @Test func embeddedPhoneSignUpShowsTheCodeAndAsksForAName() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let asked = try await parley.run("/login +44 7700 900456\n")
        #expect(asked.status == 0, "\(asked.stderr)")
        let shown = try #require(asked.lines.first { $0.hasPrefix("[development] sign-in code for +447700900456: ") })
        let code = String(shown.suffix(6))
        #expect(asked.stdout.contains("Code sent to +447700900456"))
        let result = try await parley.run(
            """
            /code 000000x +447700900456
            /code \(code) +447700900456
            /create #phones
            /profile --name "Pat Phone"
            /create #phones
            """, arguments: ["--keep-going"])
        #expect(result.stderr.contains("error: invalid_code:"))
        #expect(result.stderr.contains("error: profile_required:"))
        #expect(result.stdout.contains("Welcome! Your account is new: choose a display name"))
        #expect(result.stdout.contains("Pat Phone"))
        #expect(result.stdout.contains("Created public group #phones"))
    }

    /// Against a server, `--sms-command` hands the code to a program (here `touch`,
    /// which leaves a file named after the number and the code) run without a shell.
    @Test func serverSendsTheCodeThroughTheSmsCommand() async throws {
        let outbox = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outbox, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outbox) }
        let parley = try await ParleyBinary(
            mode: .server, serverArguments: ["--sms-command", "/usr/bin/touch \(outbox.path)/{phone}-{code}"])
        defer { parley.remove() }
        let asked = try await parley.run("/login +15559876543\n")
        #expect(asked.status == 0, "\(asked.stderr)")
        #expect(!asked.stdout.contains("[development]"), "a server never shows the code to the client")
        let sent = try FileManager.default.contentsOfDirectory(atPath: outbox.path)
        let name = try #require(sent.first, "the command was not run")
        #expect(name.hasPrefix("+15559876543-"))
        let code = String(name.suffix(6))
        let result = try await parley.run("/code \(code) +15559876543\n/profile --name \"Remote Pat\"\n/whoami\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Remote Pat"))
    }
}
