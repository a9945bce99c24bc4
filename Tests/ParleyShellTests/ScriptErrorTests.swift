import Foundation
import ParleyShell
import Testing

@Suite(.timeLimit(.minutes(10))) struct ScriptErrorTests {
    /// Each script fails on its last line with `-:LINE: error: CODE:` and stops there.
    @Test(arguments: [
        ("/bogus", "unknown_command"),
        ("/history #swift many", "usage"),
        ("/register x@example.com --colour blue --password secret-xx", "usage"),
        ("/send", "usage"),
        ("/msg @alice \"unterminated", "not_signed_in"),
        ("/login @alice --password wrong-password", "bad_credentials"),
        ("/wait --timeout 0.1 never", "not_signed_in"),
    ])
    func signedOutErrors(line: String, code: String) async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let result = try await parley.run("# comment\n\n\(line)\n/help\n")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("-:3: error: \(code): "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)  // the line after the error did not run
    }

    /// A taken handle and a taken email are told apart, embedded and through a server.
    @Test(arguments: ParleyBinary.Mode.allCases) func aTakenHandleIsNotReportedAsATakenEmail(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let result = try await parley.run(
            """
            /register alice@example.com --handle alice --password secret-alice
            /logout
            /register carol@example.com --handle Alice --password secret-carol
            /register alice@example.com --handle carol --password secret-carol
            """, arguments: ["--keep-going"])
        #expect(result.stderr.contains("-:3: error: handle_taken: "), "\(result.stderr)")
        #expect(result.stderr.contains("-:4: error: email_taken: "), "\(result.stderr)")
    }

    @Test(arguments: ParleyBinary.Mode.allCases) func membershipAndUserErrors(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        _ = try await parley.run(
            aliceAndBob
                + "\n/logout\n/login @alice --password secret-alice\n/create #secret Hidden --private\n/logout\n/login @bob --password secret-bob\n"
        )
        let cases = [
            // The same answer /join gives: the group exists, but not for bob.
            ("/send #secret hi", "private_group"),
            ("/members #secret", "private_group"),
            ("/join #secret", "private_group"),
            ("/msg @nobody hello", "unknown_user"),
            ("/history #swift", "not_member"),
            ("/members #swift", "not_member"),
            ("/kick @alice #swift", "not_member"),
            ("/send no current chat", "no_current_chat"),
            ("/join #secret", "private_group"),
            ("/join parley://join/nonsense", "invalid_invite"),
            ("/send #swift \u{1B}[2J", "invalid_text"),
            ("/wait --timeout 0.2 anything", "timeout"),
            ("/sleep forever", "usage"),
            ("/send #swift $MISSING_VARIABLE", "unknown_variable"),
        ]
        for (line, code) in cases {
            let result = try await parley.run("/whoami\n\(line)\n")
            #expect(result.status == 1, "\(line)")
            #expect(result.stderr == result.stderr.split(separator: "\n").first.map { "\($0)\n" }, "\(line)")
            #expect(result.stderr.hasPrefix("-:2: error: \(code): "), "\(line) → \(result.stderr)")
        }
    }

    @Test(arguments: ParleyBinary.Mode.allCases) func keepGoingRunsEveryLineAndStillFails(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let result = try await parley.run("/bogus\n/whoami\n/help quit\n", arguments: ["--keep-going"])
        #expect(result.status == 1)
        #expect(result.stderr.components(separatedBy: "\n").filter { $0.contains("error:") }.count == 2)
        #expect(result.stdout.contains("usage: /quit"))
    }

    @Test func runCommandNamesTheFileInErrors() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let script = parley.data.deletingLastPathComponent().appendingPathComponent("script-\(UUID().uuidString).parley")
        try "/help quit\n/whoami\n".write(to: script, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: script) }
        let result = try await parley.run(arguments: ["run", script.path, "--data", parley.data.path], useData: false)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("\(script.path):2: error: not_signed_in: "))
    }

    @Test(arguments: ParleyBinary.Mode.allCases) func variablesExpandFromTheEnvironment(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let result = try await parley.run(
            """
            /register $WHO@example.com --handle ${WHO} --password "$PASS"
            /create #gg
            /send #gg costs $5, says $WHO, not \\$WHO
            """, environment: ["WHO": "erin", "PASS": "pass word 1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("<erin> costs $5, says erin, not $WHO"))
        #expect(try await parley.run("/logout\n/login @erin --password 'pass word 1'\n").status == 0)
    }

    @Test(arguments: ParleyBinary.Mode.allCases) func jsonOutputIsOneObjectPerLine(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let result = try await parley.run(aliceAndBob + "\n/join #swift\n/send #swift hi\n/chats\n/bogus\n", arguments: ["--json"])
        #expect(result.status == 1)
        let objects = try result.lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.count == 8)
        #expect(objects.prefix(7).allSatisfy { $0["type"] as? String == "result" })
        let sent = try #require(objects[5]["data"] as? [String: Any])
        #expect(sent["text"] as? String == "hi")
        #expect(sent["seq"] as? Int == 1)
        #expect((sent["sender"] as? [String: Any])?["handle"] as? String == "bob")
        #expect(objects[7]["type"] as? String == "error")
        #expect(objects[7]["code"] as? String == "unknown_command")
        #expect(objects[7]["location"] as? String == "-:8")
    }

    @Test func commandLineBehavesAsUsual() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let help = try await parley.run(arguments: ["--help"], useData: false)
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: parley"))
        let version = try await parley.run(arguments: ["--version"], useData: false)
        #expect(version.stdout == "0.1.0\n")
        let completion = try await parley.run(arguments: ["--generate-completion-script", "bash"], useData: false)
        #expect(completion.status == 0)
        #expect(completion.stdout.contains("complete"))
        let folder = parley.data.appendingPathComponent("nested/folder")
        #expect(try await parley.run("/status\n", arguments: ["--data", folder.path], useData: false).status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("parley.sqlite").path))
        let xdg = try await parley.run("/status\n", environment: ["XDG_DATA_HOME": parley.data.path], useData: false)
        #expect(xdg.stdout.contains("Data: \(parley.data.path)/parley"))
    }
}

/// docs/shell.md's command table names every command the shell knows, and no other.
@Suite(.timeLimit(.minutes(10))) struct DocumentedCommandTableTests {
    @Test func everyCommandIsInTheShellDocsTable() throws {
        let docs = try String(contentsOf: ParleyBinary.repository.appendingPathComponent("docs/shell.md"), encoding: .utf8)
        let rows = docs.split(separator: "\n").filter { $0.hasPrefix("| `/") }
        let named = Set(rows.compactMap { $0.dropFirst(4).split(whereSeparator: { $0 == " " || $0 == "`" }).first.map(String.init) })
        #expect(named == Set(CommandTable.all.map(\.name)))
    }
}
