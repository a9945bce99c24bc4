import Foundation
import Testing

/// Script lines a careless or hostile author could write: the shell answers each with
/// an error and never crashes or hangs.
@Suite(.timeLimit(.minutes(10))) struct HostileScriptTests {
    @Test(arguments: ParleyBinary.Mode.allCases) func durationsPastTenYearsAreUsageErrors(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        _ = try await parley.run(aliceAndBob + "\n/logout\n/login @alice --password secret-alice\n")
        for line in [
            "/sleep inf", "/sleep 1e20", "/sleep 9223372036854775807", "/sleep nan", "/sleep 4000d",
            "/wait --timeout inf anything", "/wait --timeout 1e20 anything",
            "/invite --link --expires 1e20 #swift", "/invite --link --expires 9223372036854775807s #swift",
        ] {
            let result = try await parley.run("/whoami\n\(line)\n")
            #expect(result.status == 1, "\(line)")
            #expect(result.stderr.hasPrefix("-:2: error: usage: "), "\(line) → \(result.stderr)")
        }
        let fine = try await parley.run("/sleep 1ms\n/invite --link --expires 3650d #swift\n")
        #expect(fine.status == 0, "\(fine.stderr)")
    }

    /// 32 MB in one line: read in linear time it is a second's work; the quadratic
    /// reader took 10 s for 4 MB, so 32 MB would pass the suite's time limit.
    @Test func aHugeLineIsRefusedInLinearTimeAndTheScriptGoesOn() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let huge = "/send #swift " + String(repeating: "a", count: 32 << 20)
        let result = try await parley.run(aliceAndBob + "\n\(huge)\n/whoami\n", arguments: ["--keep-going"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("-:5: error: usage: the line is longer than 256 KiB"), "\(result.stderr.prefix(300))")
        #expect(result.stdout.contains("@bob"), "the line after it ran")
    }

    @Test func aHugeUnknownCommandIsRefusedAtOnce() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let result = try await parley.run("/" + String(repeating: "z", count: 200_000) + "\n")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("-:1: error: unknown_command: unknown command /zzzz"))
        #expect(result.stderr.count < 300, "the name is not echoed whole")
    }

    @Test func anUnsetVariableFailsTheSameOnAPlainLineAsInSend() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let result = try await parley.run(aliceAndBob + "\n/join #swift\nhello $PARLEY_NOT_SET_ANYWHERE\n")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("-:6: error: unknown_variable: "), "\(result.stderr)")
        let set = try await parley.run("/switch #swift\nhello $GREETING\n/history #swift 1\n", environment: ["GREETING": "world"])
        #expect(set.lines.last?.hasSuffix("hello world") == true, "\(set.stdout)")
    }

    @Test func theDataFolderAndItsFilesAreTheOwnersAlone() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let result = try await parley.run(aliceAndBob + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        func mode(_ name: String) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: parley.data.appendingPathComponent(name).path)
            return (attributes[.posixPermissions] as? Int ?? 0) & 0o777
        }
        #expect(try mode("") == 0o700)
        for file in ["parley.sqlite", "parley.sqlite-wal", "parley.sqlite-shm", "parley.sqlite-search", "parley.sqlite-search-wal"]
        where FileManager.default.fileExists(
            atPath: parley.data.appendingPathComponent(file).path)
        {
            #expect(try mode(file) == 0o600, "\(file)")
        }
        #expect(try mode("parley.sqlite") == 0o600)
        #expect(try mode("parley.sqlite-search") == 0o600)
    }

    @Test func aServersErrorTextReachesTheTerminalSanitized() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        // The server's refusal quotes the address, escape sequence and all.
        let result = try await parley.run(
            "/register $EVIL --password secret-evil\n", environment: ["EVIL": "x\u{1B}[2J\u{1B}]0;owned\u{07}@example"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("invalid_email"), "\(result.stderr)")
        #expect(!result.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(result.stderr.debugDescription)")
    }
}
