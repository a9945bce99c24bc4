import Foundation
import Testing

/// Runs of `/send` lines go to the engine as one batch; the script must not be able to
/// tell: the same output, the same error at the same line, nothing after it stored.
@Suite(.timeLimit(.minutes(10))) struct ScriptBatchTests {
    /// 300 sends with a bad one at line `bad`: the sends before it are stored and
    /// printed, the error names its line, and the ones after it never run.
    @Test(arguments: ParleyBinary.Mode.allCases) func anErrorInARunOfSendsStopsAtItsLine(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let setup = try await parley.run(aliceAndBob + "\n/join #swift\n")
        #expect(setup.status == 0, "\(setup.stderr)")
        for (badLine, code) in [("/send #swift ring $BELL", "invalid_text"), ("/send #nowhere lost", "unknown_group")] {
            let lines = (1...300).map { $0 == 150 ? badLine : "/send #swift batch \($0)" }
            let result = try await parley.run(lines.joined(separator: "\n") + "\n", environment: ["BELL": "\u{7}"])
            #expect(result.status == 1)
            #expect(result.stderr == "-:150: error: \(code): " + result.stderr.split(separator: ": ", maxSplits: 3)[3], "\(result.stderr)")
            #expect(result.lines.count == 149)
            #expect(result.lines.last?.hasSuffix("<bob> batch 149") == true)
            let history = try await parley.run("/history #swift 1\n")
            #expect(history.lines.last?.hasSuffix("<bob> batch 149") == true, "\(history.stdout)")
            _ = try await parley.run("/delete-chat #swift\n")
        }
    }

    /// With --keep-going every other line runs, and each bad line is reported once.
    @Test(arguments: ParleyBinary.Mode.allCases) func keepGoingRunsTheRestOfTheBatch(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        _ = try await parley.run(aliceAndBob + "\n/join #swift\n")
        let script = """
            /send #swift one
            /send #swift ring $BELL
            /msg @alice two
            # a comment and a blank line inside the run

            /send #nowhere lost
            /msg @nobody lost
            /send #swift three
            /send #swift <<END
            four
            and more
            END
            /send #swift five
            """
        let result = try await parley.run(script + "\n", arguments: ["--keep-going"], environment: ["BELL": "\u{7}"])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").map { String($0.prefix(while: { $0 != " " })) } == ["-:2:", "-:6:", "-:7:"])
        #expect(result.stderr.contains("-:2: error: invalid_text: "))
        #expect(result.stderr.contains("-:6: error: unknown_group: "))
        #expect(result.stderr.contains("-:7: error: unknown_user: "))
        let texts = result.lines.map {
            ($0.split(separator: "> ", maxSplits: 1).last.map(String.init) ?? $0).trimmingCharacters(in: .whitespaces)
        }
        #expect(texts == ["one", "two", "three", "four", "and more", "five"], "\(result.stdout)")
        let history = try await parley.run("/history #swift\n")
        #expect(history.lines.count == 5)  // one, three, the two-line four, five
    }

    /// A program that feeds the shell one line at a time and waits for each answer gets
    /// it: the shell never waits for more lines to fill a batch before answering.
    @Test(arguments: ParleyBinary.Mode.allCases) func aFeederThatWaitsForEachAnswerGetsIt(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        _ = try await parley.run(aliceAndBob + "\n/join #swift\n")
        let conversation = try parley.converse()
        defer { conversation.finish() }
        for index in 1...3 {
            try await conversation.send("/send #swift turn \(index)")
            #expect(try await conversation.waitForLine(containing: "<bob> turn \(index)") != nil)
        }
        try await conversation.send("/whoami")
        #expect(try await conversation.waitForLine(containing: "@bob") != nil)
    }
}
