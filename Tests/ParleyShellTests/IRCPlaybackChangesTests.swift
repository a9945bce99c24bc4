import Foundation
import ParleyTesting
import Testing

/// What changed while an IRC user was away reads, in their playback, as it is now: an
/// edit marked with when it was made, a deletion as a placeholder where the line stood,
/// reactions summed after the line they are for; the count announced is the count shown.
@Suite(.timeLimit(.minutes(10))) struct IRCPlaybackChangesTests {
    /// The number `/history` shows for alice's message `text`.
    static func number(of text: String, in history: ParleyBinary.Result) throws -> Int {
        let line = try #require(history.lines.first { $0.hasSuffix("<alice> \(text)") }, "\(history.lines)")
        return try #require(Int(String(line.drop { $0 == " " }.prefix { $0.isNumber })), "\(line)")
    }

    @Test(arguments: StoreKind.all) func editsDeletionsAndReactionsReadAsTheyAreNow(_ store: StoreKind) async throws {
        let world = try await IRCPlaybackTests.world(store)
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        try await IRCPlaybackTests.joinThenLeave(port: port)

        // While bob is away, alice says four lines, then corrects one, deletes one and
        // reacts to one.
        let said = try await world.alice.run(
            "/send #swift line one\n/send #swift line two\n/send #swift line three\n/send #swift line four")
        #expect(said.status == 0, "\(said.stderr)")
        let history = try await world.alice.run("/history #swift 4")
        func number(_ text: String) throws -> Int { try Self.number(of: text, in: history) }
        let changed = try await world.alice.run(
            "/edit #swift \(try number("line two")) line two, corrected\n/delete #swift \(try number("line three"))\n"
                + "/react #swift \(try number("line four")) 🎉")
        #expect(changed.status == 0, "\(changed.stderr)")

        let back = try IRCTestClient(port: port)
        #expect(try await back.signIn("bob", password: "builder-123", capabilities: ["server-time"]))
        #expect(await back.wait(containing: "NOTICE bob :Playing back 4 messages you missed") != nil)
        #expect(await back.wait(containing: "NOTICE bob :End of playback") != nil)
        let start = try #require(back.lines.firstIndex { $0.contains("Playing back") })
        let shown = back.lines[start...].compactMap { line -> String? in
            guard let at = line.range(of: " PRIVMSG #swift :") ?? line.range(of: " NOTICE #swift :") else { return nil }
            return String(line[at.upperBound...])
        }
        #expect(shown.count == 5, "\(shown)")
        #expect(shown.first == "line one", "\(shown)")
        let edited = shown.dropFirst().first ?? ""
        #expect(edited.range(of: #"^\[edited \d\d:\d\d UTC\] line two, corrected$"#, options: .regularExpression) != nil, "\(shown)")
        #expect(shown.dropFirst(2).first == "[deleted message]", "\(shown)")
        #expect(shown.dropFirst(3).first == "line four", "\(shown)")
        let reactions = shown.last ?? ""
        #expect(
            reactions.range(of: #"^\[reactions to alice's message of \d\d:\d\d:\d\d UTC "line four": 🎉 1\]$"#, options: .regularExpression)
                != nil, "\(shown)")
        try back.send("QUIT")
        #expect(await back.wait(containing: "ERROR :Closing link") != nil)
    }

    /// A client that takes `message-tags` but draws no replies (WeeChat) reads a missed
    /// reply with the head of what it answers, as well as the tag.
    @Test func aMissedReplyShowsWhatItAnswers() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        try await IRCPlaybackTests.joinThenLeave(port: port)
        #expect(try await world.alice.run("/send #swift the plan is simple").status == 0)
        let seq = try Self.number(of: "the plan is simple", in: try await world.alice.run("/history #swift 1"))
        #expect(try await world.alice.run("/reply #swift \(seq) and it works").status == 0)

        let back = try IRCTestClient(port: port)
        #expect(try await back.signIn("bob", password: "builder-123", capabilities: ["server-time", "message-tags"]))
        let reply = try #require(await back.wait(containing: "and it works"))
        #expect(
            reply.contains("+draft/reply=") && reply.hasSuffix(#"PRIVMSG #swift :[re alice: "the plan is simple"] and it works"#),
            "\(reply)")
        #expect(await back.wait(containing: "NOTICE bob :End of playback") != nil)
        try back.send("QUIT")
        #expect(await back.wait(containing: "ERROR :Closing link") != nil)
    }

    /// A client that takes deletions (draft/message-redaction) gets a missed deletion as
    /// it would have live: the placeholder with its msgid, then REDACT of that msgid.
    @Test func aMissedDeletionIsRedactedForAClientThatTakesDeletions() async throws {
        let world = try await IRCGatewayTests.world()
        defer { world.remove() }
        let port = try #require(world.server.ircPort)
        try await IRCPlaybackTests.joinThenLeave(port: port)
        #expect(try await world.alice.run("/send #swift a line to take back\n/send #swift a line that stays").status == 0)
        let seq = try Self.number(of: "a line to take back", in: try await world.alice.run("/history #swift 2"))
        #expect(try await world.alice.run("/delete #swift \(seq)").status == 0)

        let back = try IRCTestClient(port: port)
        #expect(
            try await back.signIn("bob", password: "builder-123", capabilities: ["server-time", "message-tags", "draft/message-redaction"]))
        let placeholder = try #require(await back.wait(containing: "PRIVMSG #swift :[deleted message]"))
        let msgid = try #require(placeholder.firstMatch(of: /msgid=([0-9]+-[0-9]+)/).map { String($0.1) })
        #expect(msgid.hasSuffix("-\(seq)"), "\(placeholder)")
        let redact = try #require(await back.wait { $0.contains(" REDACT ") || $0.contains("a line that stays") })
        #expect(redact.hasSuffix(":alice!alice@parley REDACT #swift \(msgid)"), "\(redact)")
        #expect(await back.wait(containing: "NOTICE bob :End of playback") != nil)
        try back.send("QUIT")
        #expect(await back.wait(containing: "ERROR :Closing link") != nil)
    }
}
