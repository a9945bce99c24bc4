import Foundation
import ParleyCore
import ParleyShell
import ParleyTesting
import Synchronization
import Testing

/// An internal error (a database's refusal, a type's name) reaches the person as a
/// reference; its detail is kept in the data folder's errors.log.
@Suite(.timeLimit(.minutes(10))) struct InternalErrorTests {
    @Test(arguments: [Output.Style.plain, .json]) func anInternalErrorShowsAReferenceAndLogsTheDetail(_ style: Output.Style) throws {
        let folder = try TestWorld.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("errors.log")
        let lines = Mutex<[String]>([])
        let output = Output(style: style, errorLog: log) { line in lines.withLock { $0.append(line) } }
        let detail = "SQLite error 19: UNIQUE constraint failed: user.handle - while executing `UPDATE user SET handle = 'deleted-' || id`"
        output.error(ParleyError(.internalError, detail), location: "script:3")
        let shown = lines.withLock { $0 }.joined(separator: "\n")
        #expect(shown.contains("internal") && shown.contains("(reference "), "\(shown)")
        #expect(LeakCheck.leak(in: shown) == nil, "\(shown)")
        let reference = try #require(shown.firstMatch(of: /reference ([0-9a-f]+)/).map { String($0.1) })
        let kept = try String(contentsOf: log, encoding: .utf8)
        #expect(kept.contains("internal error \(reference)") && kept.contains(detail), "\(kept)")
        // A server's internal error comes with its own reference, and is shown as it came.
        output.error(ParleyError(.internalError, "the server failed to do this (reference 1a2b)"), location: nil)
        #expect(lines.withLock { $0.last ?? "" }.contains("reference 1a2b)"))
    }
}
