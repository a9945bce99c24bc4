import Foundation
import Testing

/// `--log-dir` keeps each chat in a plain-text file of its own as messages come, and
/// `/export` writes a chat's whole history, as text or JSON lines.
@Suite(.timeLimit(.minutes(10))) struct ChatLogTests {
    @Test func logsAndExportsKeepEachChatInPlainText() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let bob = ParleyBinary(clientOf: parley)
        defer { bob.remove() }
        #expect(try await bob.run("/register bob@example.com --handle bob --password secret-bob1\n/create #aa").status == 0)
        #expect(try await parley.run("/register ann@example.com --handle ann --password secret-ann1\n/join #aa").status == 0)
        let logs = parley.data.appendingPathComponent("logs")
        let ann = try parley.converse(arguments: ["--log-dir", logs.path])
        try await ann.send("/send #aa hello from ann")
        #expect(try await ann.waitForLine(containing: "<ann> hello from ann") != nil)
        try await ann.send("/edit #aa 1 hello again")
        #expect(try await ann.waitForLine(containing: "hello again (edited)") != nil)
        try await ann.send("/send #aa second")
        #expect(try await ann.waitForLine(containing: "<ann> second") != nil)
        try await ann.send("/delete #aa 2")
        #expect(try await ann.waitForLine(containing: "Deleted message 2") != nil)
        try await ann.send("/msg @bob psst")
        #expect(try await ann.waitForLine(containing: "psst") != nil)
        #expect(try await bob.run("/send #aa from bob").status == 0)
        try await ann.send("/wait #aa from bob")
        #expect(try await ann.waitForLine(containing: "<bob> from bob") != nil)
        let text = parley.data.appendingPathComponent("aa.txt")
        let json = parley.data.appendingPathComponent("aa.json")
        try await ann.send("/export #aa \(text.path)")
        #expect(try await ann.waitForLine(containing: "Wrote 3 messages of #aa") != nil)
        try await ann.send("/export #aa \(json.path) --json")
        #expect(try await ann.waitForLine(containing: "Wrote 3 messages of #aa") != nil)
        ann.finish()

        let files = try FileManager.default.contentsOfDirectory(atPath: logs.path).sorted()
        let month = try #require(files.first { $0.hasPrefix("#aa.") }?.dropFirst(4).dropLast(4))
        #expect(month.range(of: #"^\d{4}-\d\d$"#, options: .regularExpression) != nil, "\(files)")
        #expect(files == ["#aa.\(month).log", "@bob.\(month).log"])
        let group = try String(contentsOf: logs.appendingPathComponent("#aa.\(month).log"), encoding: .utf8)
        let stamped = #"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d "#
        let lines = group.split(separator: "\n").map(String.init)
        #expect(lines.allSatisfy { $0.range(of: stamped, options: .regularExpression) != nil }, "\(lines)")
        #expect(
            lines.map { String($0.dropFirst(20)) } == [
                "<ann> hello from ann", "* @ann edited message 1: hello again", "<ann> second", "* @ann deleted message 2",
                "<bob> from bob",
            ])
        let direct = try String(contentsOf: logs.appendingPathComponent("@bob.\(month).log"), encoding: .utf8)
        #expect(direct.hasSuffix(" <ann> psst\n"), "\(direct)")

        let exported = try String(contentsOf: text, encoding: .utf8).split(separator: "\n").map { String($0.dropFirst(20)) }
        #expect(exported == ["1. <ann> hello again (edited)", "2. <ann> (deleted)", "3. <bob> from bob"])
        let objects = try String(contentsOf: json, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.map { $0?["seq"] as? Int } == [1, 2, 3])
        #expect(objects.first??["chat_id"] != nil && objects.first??["text"] as? String == "hello again")
    }

    /// `/autolog on DIR` is kept with the data folder: the next shell logs without a
    /// flag, until `/autolog off`.
    @Test func autologIsASettingKeptForTheDataFolder() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let logs = parley.data.appendingPathComponent("kept-logs")
        let first = try await parley.run(
            """
            /register ann@example.com --handle ann --password secret-ann1
            /create #aa
            /autolog
            /autolog on \(logs.path)
            /send #aa one
            """)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("Not logging: /autolog on [DIR]"))
        #expect(first.stdout.contains("Logging each chat to \(logs.path), from now on in this data folder"))
        let second = try await parley.run("/autolog\n/send #aa two\n/autolog off\n/send #aa three\n/autolog")
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.lines.first == "Logging each chat to \(logs.path)", "\(second.lines)")
        #expect(second.lines.last == "Not logging: /autolog on [DIR] keeps each chat in a file of its own")
        #expect(try await parley.run("/send #aa four").status == 0)
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: logs.path).first)
        let lines = try String(contentsOf: logs.appendingPathComponent(file), encoding: .utf8).split(separator: "\n")
        #expect(lines.map { String($0.dropFirst(20)) } == ["<ann> one", "<ann> two"], "\(lines)")
        let bad = try await parley.run("/autolog maybe")
        #expect(bad.status != 0 && bad.stderr.contains("'maybe' is not on or off"))
    }
}
