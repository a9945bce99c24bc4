import Foundation
import ParleyTesting
import Testing

/// `parley serve --config FILE`: every flag's setting in a YAML file under the flag's
/// name, flags winning over the file, `--check` printing what the server would use, and
/// a file's mistakes told by key before anything starts.
@Suite(.timeLimit(.minutes(10))) struct ServeConfigTests {
    static let example = ParleyBinary.repository.appendingPathComponent("deploy/parley.yaml").path

    func write(_ text: String) throws -> URL {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-config-\(UUID().uuidString).yaml")
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// deploy/parley.yaml holds every setting at its default: read back, it changes
    /// nothing, and no setting `--check` prints is missing from it.
    @Test func theExampleHoldsEverySettingAtItsDefault() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let defaults = try await parley.run(arguments: ["serve", "--check"], useData: false)
        #expect(defaults.status == 0, "\(defaults.stderr)")
        let fromExample = try await parley.run(arguments: ["serve", "--config", Self.example, "--check"], useData: false)
        #expect(fromExample.status == 0 && fromExample.stdout == defaults.stdout, "\(fromExample.stderr)")
        let example = try String(contentsOfFile: Self.example, encoding: .utf8).split(separator: "\n").map(String.init)
        let keys = defaults.lines.map { String($0.prefix { $0 != ":" }) }
        #expect(keys.count > 50 && keys.contains("ping-timeout") && keys.contains("oidc-issuer") && keys.contains("admin"))
        for line in defaults.lines { #expect(example.contains(line), "deploy/parley.yaml lacks \(line)") }
    }

    /// docs/server.md's settings file passes `--check` as it is written there.
    @Test func theDocsFilePassesTheCheck() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let docs = try String(contentsOf: ParleyBinary.repository.appendingPathComponent("docs/server.md"), encoding: .utf8)
        let block = try #require(docs.components(separatedBy: "```yaml\n").dropFirst().first?.components(separatedBy: "```").first)
        let file = try write(block)
        defer { try? FileManager.default.removeItem(at: file) }
        let checked = try await parley.run(arguments: ["serve", "--config", file.path, "--check"], useData: false)
        #expect(checked.status == 0, "\(checked.stderr)")
        #expect(checked.lines.contains(#"hook-allow: ["ci.example.com", "*.internal.example.com"]"#), "\(checked.stdout)")
    }

    /// The file's settings stand unless a flag gives the same one; a list given as flags
    /// replaces the file's; what `--check` prints reads back to the same.
    @Test func flagsWinOverTheFileAndTheCheckReadsBack() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let file = try write(
            """
            # a comment
            port: 8000
            rate-limit: 40
            hook-allow: [ci.example.com, "*.example.org"]
            admin: "@alice"
            irc-guests: true
            irc-port: 6667
            registration: invite
            """)
        defer { try? FileManager.default.removeItem(at: file) }
        let checked = try await parley.run(
            arguments: ["serve", "--config", file.path, "--port", "9000", "--hook-allow", "hooks.example.net", "--check"], useData: false)
        #expect(checked.status == 0, "\(checked.stderr)")
        for line in [
            "port: 9000", "rate-limit: 40", #"hook-allow: ["hooks.example.net"]"#, #"admin: ["@alice"]"#, "irc-guests: true",
            #"registration: "invite""#, "ping-timeout: 15.0",
        ] {
            #expect(checked.lines.contains(line), "\(line) in \(checked.stdout)")
        }
        let again = try write(checked.stdout)
        defer { try? FileManager.default.removeItem(at: again) }
        let reread = try await parley.run(arguments: ["serve", "--config", again.path, "--check"], useData: false)
        #expect(reread.status == 0 && reread.stdout == checked.stdout, "\(reread.stderr)")
    }

    /// A mistake in the file is told by its key (or the flag's own rule) and nothing runs.
    @Test func aFilesMistakesAreToldByKey() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        for (text, error) in [
            ("prot: 7878", "no setting named prot"),
            ("irc-guests: yes please", "irc-guests is true or false"),
            ("port: seven", "'seven' is invalid for '--port <port>'"),
            ("port: [1", "not YAML"),
            ("- port", "the file is a mapping of settings"),
            ("admin: {name: alice}", "admin takes a value"),
            ("log-level: loud", "--log-level takes trace, debug, info, notice, warning or error"),
            ("irc-guests: true", "--irc-guests needs --irc-port or --ircs-port"),
        ] {
            let file = try write(text)
            defer { try? FileManager.default.removeItem(at: file) }
            let result = try await parley.run(arguments: ["serve", "--config", file.path, "--check"], useData: false)
            #expect(result.status == 64 && result.stderr.contains(error), "\(text): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let missing = try await parley.run(arguments: ["serve", "--config", "/nonexistent/parley.yaml", "--check"], useData: false)
        #expect(missing.status == 64 && missing.stderr.contains("cannot read /nonexistent/parley.yaml"))
    }

    /// A server started from a file serves as the file says: here the IRC gateway the
    /// file turns on, and the operator it names.
    @Test func aServerRunsFromItsFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("parley.yaml")
        try "irc-port: 0\nadmin: ['@oscar']\nregistration: invite\n".write(to: file, atomically: true, encoding: .utf8)
        let server = try await ServeProcess.start(data: folder.appendingPathComponent("data"), arguments: ["--config", file.path])
        defer { server.stop() }
        #expect(server.ircPort != nil, "the file's irc-port started the gateway")
        let oscar = ParleyBinary(serverURL: server.url)
        defer { oscar.remove() }
        let refused = try await oscar.run("/register oscar@example.com --handle oscar --password secret-oscar")
        #expect(refused.status != 0 && refused.stderr.contains("code"), "the file's registration: invite holds: \(refused.stderr)")
    }

    /// SIGHUP reads the file again: a changed hook rate, hook allowlist and ban apply at
    /// once and are logged, a setting that takes a restart is logged as such and left, the
    /// one connection the ban names ends, and a shell connected all along stays connected.
    @Test func aReloadAppliesWhatItCanAndDropsNoConnection() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("parley.yaml")
        try "hook-rate: 1\nmax-file-mb: 25\n".write(to: file, atomically: true, encoding: .utf8)
        let log = folder.appendingPathComponent("server.log")
        let server = try await ServeProcess.start(
            data: folder.appendingPathComponent("data"), arguments: ["--config", file.path], logLevel: "notice", log: log)
        defer { server.stop() }
        let alice = ParleyBinary(serverURL: server.url)
        defer { alice.remove() }
        let made = try await alice.run(
            "/register alice@example.com --handle alice --password secret-alice\n/create #ops\n/hook new #ops --name CI")
        #expect(made.status == 0, "\(made.stderr)")
        let hook = try #require(
            made.lines.first { $0.contains("/v1/hooks/") }.map { String($0[$0.range(of: "/v1/hooks/")!.lowerBound...]) })
        let shell = try alice.converse(keepGoing: true)
        defer { shell.finish() }
        try await shell.send("/switch #ops")
        #expect(try await shell.waitForLine(containing: "Now in #ops") != nil)
        let mallory = ParleyBinary(serverURL: server.url)
        defer { mallory.remove() }
        let registered = try await mallory.run("/register mallory@example.com --handle mallory --password secret-mallory")
        #expect(registered.status == 0, "\(registered.stderr)")
        let mallorysShell = try mallory.converse(keepGoing: true)
        defer { mallorysShell.finish() }
        try await mallorysShell.send("/whoami")
        #expect(try await mallorysShell.waitForLine(containing: "@mallory") != nil)

        /// Posts at once, more than a burst of the rate allows: the refusals' words.
        func flood() async throws -> [String] {
            try await withThrowingTaskGroup(of: String?.self) { group in
                for number in 1...40 {
                    group.addTask {
                        let answer = try await HookScriptTests.post(
                            server.port, hook, "post \(number)", headers: ["Content-Type": "text/plain"])
                        return answer.status == 429 ? answer.text : nil
                    }
                }
                return try await group.reduce(into: []) { if let text = $1 { $0.append(text) } }
            }
        }
        #expect(try await flood().contains { $0.contains("this hook posts at most 1 messages a second") })

        try "hook-rate: 3\nmax-file-mb: 50\nhook-allow: [ci.example.com]\nban: [\"@mallory\"]\n".write(
            to: file, atomically: true, encoding: .utf8)
        server.process.terminate(SIGHUP)
        let logged = try await ParleyBinaryWait.until {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.contains("max-file-mb changed") ? text : nil
        }
        #expect(logged?.contains("reload: hook-rate 1 → 3") == true, "\(logged ?? "")")
        #expect(logged?.contains(#"reload: hook-allow [] → ["ci.example.com"]"#) == true, "\(logged ?? "")")
        #expect(logged?.contains("max-file-mb changed to 50 but takes a restart; still 25") == true, "\(logged ?? "")")
        #expect(logged?.contains(#"reload: ban [] → ["@mallory"]"#) == true, "\(logged ?? "")")
        // The ban ends mallory's connection, and refuses her at the door from then on.
        #expect(try await mallorysShell.waitForLine(containing: "banned from this server") != nil)
        let refused = try await mallory.run("/login @mallory --password secret-mallory")
        #expect(refused.status != 0 && refused.stderr.contains("banned from this server"), "\(refused.stderr)")
        #expect(try await flood().contains { $0.contains("this hook posts at most 3 messages a second") })
        let allowed = try await alice.run("/hook out #ops --name deploy --url https://ci.example.com/x --trigger !deploy")
        #expect(allowed.status == 0, "the reloaded allowlist lets the hook be made: \(allowed.stderr)")

        // The shell connected before the reload is still: it sends, and lost nothing.
        try await shell.send("/send #ops after the reload")
        var lines: [String] = []
        while let line = try await shell.waitForLine(containing: "") {
            lines.append(line)
            if line.contains("after the reload") { break }
        }
        #expect(lines.last?.contains("after the reload") == true && !lines.contains { $0.contains("[connection lost]") }, "\(lines)")
    }
}
