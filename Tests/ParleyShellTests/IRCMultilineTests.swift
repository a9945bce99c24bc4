import Foundation
import ParleyTesting
import Testing

/// Messages of several lines over IRC (draft/multiline), on both stores: one message
/// both ways for clients that take the capability, cut live as its sender cut it; its
/// lines for those that don't; and the batch's bounds.
@Suite(.timeLimit(.minutes(10))) struct IRCMultilineTests {
    static let capable = ["message-tags", "batch", "draft/multiline", "server-time"]

    @Test(arguments: StoreKind.all) func aBatchOfLinesIsOneMessageForEveryClient(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice", "bob"], store: store, arguments: ["--irc-port", "0"])
        defer { world.remove() }
        #expect(
            try await world["alice"].run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        #expect(try await world["bob"].run("/register bob@example.com --handle bob --password builder-123\n/join #team").status == 0)
        func connect(_ handle: String, _ password: String, _ capabilities: [String]) async throws -> IRCTestClient {
            try await world.irc(handle, password, capabilities: capabilities, in: "#team")
        }
        let alice = try await connect("alice", "wonderland-1", Self.capable + ["echo-message", "labeled-response"])
        let bob = try await connect("bob", "builder-123", Self.capable)
        let plain = try await connect("bob", "builder-123", ["server-time"])
        #expect(alice.lines.contains { $0.contains(" CAP ") && $0.contains("draft/multiline=max-bytes=4000,max-lines=32") })

        for line in [
            "@label=one BATCH +a draft/multiline #team", "@batch=a PRIVMSG #team :first line", "@batch=a PRIVMSG #team :",
            "@batch=a PRIVMSG #team :third, ", "@batch=a;draft/multiline-concat PRIVMSG #team :continued", "BATCH -a",
        ] { try alice.send(line) }
        // Back to alice, labeled, as one batch: the message's tags on its start.
        let echoStart = try #require(await alice.wait(containing: " BATCH +"))
        #expect(
            echoStart.contains("label=one") && echoStart.contains("msgid=") && echoStart.contains(" draft/multiline #team"), "\(echoStart)")
        #expect(await alice.wait(containing: " BATCH -") != nil)
        let start = try #require(await bob.wait(containing: " BATCH +"))
        let msgid = try #require(start.firstMatch(of: /msgid=([0-9]+-[0-9]+)/).map { String($0.1) })
        let batch = try #require(start.firstMatch(of: /\sBATCH \+(\S+) draft\/multiline #team/).map { String($0.1) })
        #expect(await bob.wait(containing: " BATCH -\(batch)") != nil)
        // Cut as alice cut it: the blank line, the line that continues the one before.
        let inner = bob.lines.filter { $0.hasPrefix("@batch=\(batch)") }
        // (A last parameter without a space is written without its colon.)
        let texts = inner.compactMap { line in
            line.range(of: " PRIVMSG #team ").map { String(line[$0.upperBound...]) }.map { $0.hasPrefix(":") ? String($0.dropFirst()) : $0 }
        }
        #expect(texts == ["first line", "", "third, ", "continued"], "\(inner)")
        #expect(inner.count == 4 && inner[3].hasPrefix("@batch=\(batch);draft/multiline-concat "), "\(inner)")
        // A plain client: her lines, the blank one left out, the msgid (had it tags) on the first.
        #expect(await plain.wait(containing: "PRIVMSG #team :first line") != nil)
        let next = try #require(await plain.wait { $0.contains("PRIVMSG #team :") })
        #expect(next.hasSuffix("PRIVMSG #team :third, "), "\(next)")
        let last = try #require(await plain.wait { $0.hasSuffix("PRIVMSG #team continued") })
        #expect(!last.contains("multiline-concat"), "\(last)")

        // The shell has one message, as written.
        let history = try await world["bob"].run("/history #team", arguments: ["--json"])
        #expect(history.stdout.contains(#""text":"first line\n\nthird, continued""#), "\(history.stdout)")
        #expect(msgid.hasSuffix("-1"), "the first message of #team: \(msgid)")

        // A long line from the shell reaches a capable client cut, marked as continued.
        let long = String(repeating: "word ", count: 120).trimmingCharacters(in: .whitespaces)
        #expect(try await world["alice"].run("/send #team \(long)").status == 0)
        let longStart = try #require(await bob.wait(containing: " BATCH +"))
        let longBatch = try #require(longStart.firstMatch(of: /\sBATCH \+(\S+)\s/).map { String($0.1) })
        #expect(await bob.wait(containing: " BATCH -\(longBatch)") != nil)
        let cut = bob.lines.filter { $0.hasPrefix("@batch=\(longBatch)") }
        #expect(cut.count == 2 && cut[1].hasPrefix("@batch=\(longBatch);draft/multiline-concat "), "\(cut)")
        let text = cut.compactMap { line in line.range(of: " PRIVMSG #team :").map { String(line[$0.upperBound...]) } }
        #expect(text.joined() == long, "\(cut)")
    }

    @Test func aBatchPastItsBoundsOrMalformedIsRefusedAndNothingIsSent() async throws {
        let world = try await ServedShells(["alice"], arguments: ["--irc-port", "0"])
        defer { world.remove() }
        #expect(
            try await world["alice"].run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        let alice = try await world.irc("alice", "wonderland-1", capabilities: Self.capable + ["echo-message"], in: "#team")

        try alice.send("BATCH +b draft/multiline #team")
        for number in 0...32 { try alice.send("@batch=b PRIVMSG #team :line \(number)") }
        try alice.send("BATCH -b")
        #expect(await alice.wait(containing: "FAIL BATCH MULTILINE_MAX_LINES 32 ") != nil)
        try alice.send("BATCH +c draft/multiline #team")
        try alice.send("@batch=c PRIVMSG #team :" + String(repeating: "x", count: 400))
        for _ in 0..<10 { try alice.send("@batch=c PRIVMSG #team :" + String(repeating: "x", count: 400)) }
        try alice.send("BATCH -c")
        #expect(await alice.wait(containing: "FAIL BATCH MULTILINE_MAX_BYTES 4000 ") != nil)
        try alice.send("BATCH +d draft/multiline #team")
        try alice.send("@batch=d PRIVMSG #elsewhere :hi")
        try alice.send("BATCH -d")
        #expect(await alice.wait(containing: "FAIL BATCH MULTILINE_INVALID_TARGET #team #elsewhere ") != nil)
        try alice.send("BATCH +e draft/multiline #team")
        try alice.send("@batch=e PRIVMSG #team :hi")
        try alice.send("@batch=e;draft/multiline-concat PRIVMSG #team :")
        try alice.send("BATCH -e")
        #expect(await alice.wait(containing: "FAIL BATCH MULTILINE_INVALID ") != nil)
        try alice.send("BATCH +f draft/multiline #team")
        try alice.send("@batch=g PRIVMSG #team :hi")
        #expect(await alice.wait(containing: "FAIL BATCH MULTILINE_INVALID ") != nil)

        // None of them was sent: the next line is the chat's first message.
        try alice.send("PRIVMSG #team :after all that")
        let after = try #require(await alice.wait(containing: "PRIVMSG #team :after all that"))
        #expect(after.contains("msgid=") && after.firstMatch(of: /msgid=[0-9]+-1[;\s]/) != nil, "\(after)")
        #expect(!alice.lines.contains { $0.contains("PRIVMSG #team :line 0") || $0.contains("PRIVMSG #team :hi") }, "\(alice.lines)")
    }

    /// Flood control counts a batch as one message: four batches of 32 lines (136 lines,
    /// past the 20 a burst and the 100 that may wait) pass at once.
    @Test func aBatchCountsAsOneMessageForFloodControl() async throws {
        let world = try await ServedShells(["alice"], arguments: ["--irc-port", "0", "--irc-line-rate", "10"])
        defer { world.remove() }
        #expect(
            try await world["alice"].run("/register alice@example.com --handle alice --password wonderland-1\n/create #team").status == 0)
        let alice = try await world.irc("alice", "wonderland-1", capabilities: Self.capable + ["echo-message"], in: "#team")
        var lines: [String] = []
        for batch in 1...4 {
            lines.append("BATCH +b\(batch) draft/multiline #team")
            for number in 1...32 { lines.append("@batch=b\(batch) PRIVMSG #team :batch \(batch) line \(number)") }
            lines.append("BATCH -b\(batch)")
        }
        try alice.send((lines + ["PING after-the-batches"]).joined(separator: "\r\n"))
        #expect(await alice.wait(containing: "PONG parley after-the-batches") != nil)
        #expect(alice.lines.filter { $0.contains(" BATCH +") && $0.contains(" draft/multiline #team") }.count == 4)
        #expect(alice.lines.contains { $0.hasSuffix("PRIVMSG #team :batch 4 line 32") })
        #expect(!alice.lines.contains { $0.contains("flood") || $0.contains("Excess Flood") }, "\(alice.lines.suffix(3))")
    }
}
