import Foundation
import ParleyTesting
import Testing

/// The Swift bot of examples/SwiftBot, built on the ParleyBot library alone, run as its
/// author would: against a server, as a bot of the user signed in in its data folder.
@Suite(.timeLimit(.minutes(10))) struct ExampleBotTests {
    static let executable = ParleyBinary.executable.deletingLastPathComponent().appendingPathComponent("parley-example-bot")

    @Test func theExampleBotCountsAndAnswersInAGroup() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let server = try #require(parley.serverURL)
        #expect(try await parley.run("/register alice@example.com --handle alice --password secret-alice\n/create #team").status == 0)
        var environment = ProcessInfo.processInfo.environment
        environment["PARLEY_BCRYPT_COST"] = "4"
        let bot = try ChildProcess(
            Self.executable.path, ["--as", "@tally", "--server", server, "--data", parley.data.path], environment: environment,
            stderr: .pipe)
        defer {
            bot.terminate()
            bot.waitUntilExit()
        }
        let log = ParleyBinary.Conversation(process: bot, input: FileHandle.nullDevice, output: try #require(bot.errors))
        #expect(try await log.waitForLine(containing: "tally runs as @tally") != nil)
        #expect(try await parley.run("/invite @tally #team\n/send #team one\n/send #team !tally").status == 0)
        let answered = try await OutgoingHookScriptTests.poll({ try await parley.run("/history #team 10").stdout }) {
            $0.contains("messages here since I joined")
        }
        #expect(answered.contains("<tally*> 2 messages here since I joined"), "\(answered)")
        // A newcomer is greeted.
        let bob = ParleyBinary(clientOf: parley)
        defer { bob.remove() }
        #expect(try await bob.run("/register bob@example.com --handle bob --password secret-bob1\n/join #team").status == 0)
        let greeted = try await OutgoingHookScriptTests.poll({ try await parley.run("/history #team 10").stdout }) {
            $0.contains("Hello bob!")
        }
        #expect(greeted.contains("<tally*> Hello bob! Say !tally to see how chatty we are."), "\(greeted)")
    }

    /// A command line without `--as` is told how to run it, with status 64.
    @Test func withoutAHandleItSaysHowToRunIt() throws {
        let process = try ChildProcess(Self.executable.path, [], stdout: .pipe)
        let output = String(decoding: process.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 64 && output.hasPrefix("usage: parley-example-bot --as @HANDLE"), "\(output)")
    }
}
