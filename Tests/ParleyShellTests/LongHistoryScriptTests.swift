import Foundation
import ParleyTesting
import Testing

/// A chat weeks old through the binary: 2,000 messages of 1 KB read back with
/// `/history 500` (text and JSON, past any one frame's worth) and exported whole; an
/// export the server dies under leaves nothing under the name asked for.
@Suite(.timeLimit(.minutes(10))) struct LongHistoryScriptTests {
    static let filler = String(repeating: "lorem ipsum ", count: 84)

    @Test(arguments: StoreKind.all) func twoThousandMessagesOfAKilobyteReadAndExportWhole(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice"], store: store)
        defer { world.remove() }
        let alice = world["alice"]
        let sends = (1...2000).map { "/send #big \(String(format: "%04d", $0)) \(Self.filler)" }.joined(separator: "\n")
        let made = try await alice.run("/register alice@example.com --handle alice --password wonderland-1\n/create #big\n" + sends)
        try #require(made.status == 0, "\(made.stderr.suffix(500))")

        let history = try await alice.run("/history #big 500")
        #expect(history.status == 0, "\(history.stderr)")
        let numbers = history.lines.compactMap { $0.firstMatch(of: /> (\d{4}) lorem/).flatMap { Int($0.1) } }
        #expect(numbers == Array(1501...2000), "\(numbers.prefix(3))…\(numbers.suffix(3)) of \(numbers.count)")
        let longer = try await alice.run("/history #big 1200")
        let older = longer.lines.compactMap { $0.firstMatch(of: /> (\d{4}) lorem/).flatMap { Int($0.1) } }
        #expect(older == Array(801...2000), "more than a page: \(older.count)")
        let json = try await alice.run("/history #big 500", arguments: ["--json"])
        #expect(json.status == 0 && json.stdout.utf8.count > 500_000, "\(json.stderr)")
        #expect(json.stdout.components(separatedBy: "\"text\":\"").count - 1 >= 500)

        for flag in ["", " --json"] {
            let file = world.folder.appendingPathComponent("big\(flag.isEmpty ? ".log" : ".jsonl")")
            let exported = try await alice.run("/export #big \(file.path)\(flag)")
            #expect(exported.lines == ["Wrote 2000 messages of #big to \(file.path)"], "\(exported.stderr)")
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 2000 && lines.first?.contains("0001 lorem") == true && lines.last?.contains("2000 lorem") == true)
        }

        // The server dies under an export: no file under its name, and no leftover.
        let shell = try alice.converse(keepGoing: true)
        defer { shell.finish() }
        let folder = world.folder.appendingPathComponent("exports")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var cut: String?
        for attempt in 0..<5 where cut == nil {
            let name = folder.appendingPathComponent("attempt-\(attempt).log")
            try await shell.send("/export #big \(name.path)")
            // Caught part way when its temporary file shows before the finished one.
            while true {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                if names.contains(where: { $0.hasPrefix(".partial-") }) {
                    world.server.kill()
                    cut = name.lastPathComponent
                    break
                }
                if names.contains(name.lastPathComponent) { break }
                usleep(2_000)
            }
        }
        let cutName = try #require(cut, "no export was caught part way in five tries")
        #expect(try await shell.waitForLine(containing: "error:") != nil)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(!left.contains { $0.hasPrefix(".partial-") }, "\(left)")
        #expect(!left.contains(cutName), "the export cut short left no file under its name: \(left)")
    }
}
