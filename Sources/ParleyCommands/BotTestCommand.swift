import ArgumentParser
import Foundation
import ParleyBots
import ParleyCore
import ParleyShell

/// `parley bot test PLUGIN TRANSCRIPT...`: runs the plugin against a fresh embedded
/// store with the transcript's people and groups, says their lines, and compares the
/// bot's answers with the expected ones, on a clock that moves only when told.
struct BotTestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test", abstract: "Test a bot plugin against scripted conversations.",
        discussion: """
            A transcript names its people and groups, what they say (alice> !ping), what the \
            bot must answer (< pong, or < /a pattern/), and moves the bot's clock (wait 10m) \
            so schedules fire at once. See docs/plugins.md. Exit status: 0 when every answer \
            matched, 1 when one did not, 2 when a transcript could not be run. With --json, one \
            JSON object a transcript: ok, answers, failures (line, expected, got, chat), stderr.
            """)

    @Argument(help: "The plugin executable.")
    var plugin: String

    @Argument(help: "Transcript files.")
    var transcripts: [String]

    /// `--json` (the shell's flag, wherever it is given): one JSON object per transcript.
    @ParentCommand var bot: BotCommand

    func run() async throws {
        let json = bot.parent.global.json
        guard !transcripts.isEmpty else { throw ValidationError("name at least one transcript") }
        var worst: Int32 = 0
        for path in transcripts {
            let report: BotTestReport
            do {
                guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
                    throw BotTranscript.Problem(line: 0, message: "cannot read \(path)")
                }
                let transcript = try BotTranscript(text: text)
                report = try await BotTestRun(plugin: plugin, transcript: transcript).run()
            } catch {
                let message = (error as? ParleyError)?.message ?? "\(error)"
                print(
                    json
                        ? Self.jsonLine(["transcript": .string(path), "ok": .bool(false), "error": .string(message)])
                        : "ERROR \(path): \(message)")
                worst = 2
                continue
            }
            if !report.ok { worst = max(worst, 1) }
            print(json ? Self.jsonLine(report.json(transcript: path, plugin: plugin)) : report.text(transcript: path))
        }
        if worst != 0 { throw ExitCode(worst) }
    }

    private static func jsonLine(_ object: [String: JSONValue]) -> String {
        String(decoding: JSONValue.object(object).jsonData, as: UTF8.self)
    }
}

/// What one transcript showed: each expected answer with what came, and the plugin's stderr.
struct BotTestReport {
    struct Failure {
        var line: Int
        /// The line said before it, for context.
        var after: String?
        var expected: String?
        var got: String?
        var chat: String?
    }

    var answers = 0
    var failures: [Failure] = []
    var stderr: [String] = []
    var seconds = 0.0

    var ok: Bool { failures.isEmpty }

    func text(transcript: String) -> String {
        let time = String(format: "%.2f s", seconds)
        guard !ok else { return "PASS \(transcript) (\(answers) answer\(answers == 1 ? "" : "s"), \(time))" }
        var lines = [
            "FAIL \(transcript): \(failures.count) of \(answers) answer\(answers == 1 ? "" : "s") differ (\(time))", "--- expected",
            "+++ the bot",
        ]
        for failure in failures {
            lines.append("@@ line \(failure.line) @@")
            if let after = failure.after { lines.append("  \(after)") }
            if let expected = failure.expected { lines.append("- \(expected)") }
            lines.append("+ \(failure.got ?? "(no answer)")\(failure.chat.map { "    [\($0)]" } ?? "")")
        }
        if !stderr.isEmpty {
            lines.append("the plugin's stderr (last \(min(stderr.count, 10)) lines):")
            lines += stderr.suffix(10).map { "  " + $0 }
        }
        return lines.joined(separator: "\n")
    }

    func json(transcript: String, plugin: String) -> [String: JSONValue] {
        let listed = failures.map { failure -> JSONValue in
            var object: [String: JSONValue] = ["line": .number(Double(failure.line))]
            object["expected"] = failure.expected.map(JSONValue.string)
            object["got"] = failure.got.map(JSONValue.string)
            object["chat"] = failure.chat.map(JSONValue.string)
            return .object(object)
        }
        return [
            "transcript": .string(transcript), "plugin": .string(plugin), "ok": .bool(ok), "answers": .number(Double(answers)),
            "failures": .array(listed), "stderr": .array(stderr.suffix(20).map(JSONValue.string)), "seconds": .number(seconds),
        ]
    }
}
