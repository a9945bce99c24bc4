import Foundation
import ParleyTesting
import Testing

/// The new commands through the binary in script mode, with `--json`, embedded and
/// against a server.
@Suite(.timeLimit(.minutes(10))) struct ConversationScriptTests {
    typealias Object = [String: Any]

    static func objects(_ result: ParleyBinary.Result) throws -> [Object] {
        try result.lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? Object) }
    }

    /// The data of the results of `command`, in order.
    static func results(_ objects: [Object], _ command: String) -> [Any] {
        objects.filter { $0["type"] as? String == "result" && $0["command"] as? String == command }.compactMap { $0["data"] }
    }

    static func errors(_ objects: [Object]) -> [String] {
        objects.filter { $0["type"] as? String == "error" }.compactMap { $0["code"] as? String }
    }

    @Test(arguments: ParleyBinary.Mode.allCases) func mentionsRepliesEditsReactionsTopicsAndAwayAsJSON(mode: ParleyBinary.Mode) async throws
    {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let result = try await parley.run(
            """
            /register alice@example.com --handle alice --password secret-alice
            /create #club
            /logout
            /register bob@example.com --handle bob --password secret-bob
            /join #club
            /logout
            /login @alice --password secret-alice
            /send #club hi @bob, the plan is on the wiki
            /topic #club plans for friday
            /edit #club 1 hi @bob, the plan is in the repo
            /react #club 1 👍
            /logout
            /login @bob --password secret-bob
            /chats
            /mentions
            /reply #club 1 will do
            /react #club 1 🎉
            /unreact #club 1 🎉
            /delete #club 1
            /members #club
            /away at lunch
            /sessions
            /logout
            /login @alice --password secret-alice
            /whois @bob
            /delete #club 2
            /history #club
            /rules #club topic=anyone
            """, arguments: ["--json", "--keep-going"])
        let objects = try Self.objects(result)
        // bob may not delete alice's message; nothing else fails.
        #expect(Self.errors(objects) == ["forbidden"], "\(result.stdout)")
        let sent = try #require(Self.results(objects, "send").first as? Object)
        #expect(sent["mentions"] as? [String] == ["bob"])
        let edited = try #require(Self.results(objects, "edit").first as? Object)
        #expect(edited["text"] as? String == "hi @bob, the plan is in the repo" && edited["edited_at"] != nil)
        let topic = try #require(Self.results(objects, "topic").first as? Object)
        #expect(topic["topic"] as? String == "plans for friday")
        let chats = try #require(Self.results(objects, "chats").first as? [Object])
        #expect(chats.first?["mentions"] as? Int == 1 && chats.first?["unread"] as? Int == 1)
        let mentions = try #require(Self.results(objects, "mentions").first as? [Object])
        #expect(mentions.map { $0["seq"] as? Int } == [1])
        let reply = try #require(Self.results(objects, "reply").first as? Object)
        let quote = try #require(reply["reply_to"] as? Object)
        #expect(quote["seq"] as? Int == 1 && quote["text"] as? String == "hi @bob, the plan is in the repo")
        let reactions = Self.results(objects, "react").compactMap { $0 as? [Object] }
        #expect(reactions.last?.map { $0["emoji"] as? String } == ["👍", "🎉"])
        #expect((Self.results(objects, "unreact").first as? [Object])?.map { $0["emoji"] as? String } == ["👍"])
        let sessions = try #require(Self.results(objects, "sessions").first as? [Object])
        #expect(sessions.count == 1 && sessions.first?["current"] as? Bool == true)
        let whois = try #require(Self.results(objects, "whois").first as? Object)
        #expect(whois["away"] as? String == "at lunch")
        #expect((whois["user"] as? Object)?["handle"] as? String == "bob")
        let history = try #require(Self.results(objects, "history").first as? [Object])
        #expect(history.map { $0["seq"] as? Int } == [1, 2])
        #expect(history[1]["deleted_at"] != nil && history[1]["text"] as? String == "")
        #expect((history[0]["reactions"] as? [Object])?.first?["count"] as? Int == 1)
        let rules = try #require(Self.results(objects, "rules").first as? Object)
        #expect(rules["anyone_sets_topic"] as? Bool == true && rules["anyone_mentions_all"] == nil)
    }

    @Test func theSameCommandsReadWellWithoutJSON() async throws {
        let parley = try await ParleyBinary()
        defer { parley.remove() }
        let result = try await parley.run(
            aliceAndBob + """

                /join #swift
                /logout
                /login @alice --password secret-alice
                /topic #swift Swift 6 on Linux
                /send #swift @bob have a look
                /logout
                /login @bob --password secret-bob
                /chats
                /reply #swift 1 looks good
                /react #swift 1 👍
                /edit #swift 2 looks great
                /members #swift
                /history #swift
                /delete #swift 2
                /history #swift
                /mentions
                /whois @alice
                """)
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        #expect(out.contains("#swift (1 unread, 1 mention)"))
        #expect(out.contains("<bob> looks good\n"))
        #expect(out.contains("↳ @alice: @bob have a look"))
        #expect(out.contains("Message 1 in #swift: [👍 1]"))
        #expect(out.contains("<bob> looks great (edited)"))
        // In /history's numbered lines, a reply's quote stands under its text.
        let lines = out.split(separator: "\n").map(String.init)
        let numbered = try #require(lines.firstIndex { $0.hasPrefix("2. [") && $0.contains("<bob> looks great") })
        let quote = lines[numbered + 1]
        let textColumn = try #require(lines[numbered].range(of: "looks great")).lowerBound.utf16Offset(in: lines[numbered])
        #expect(quote.prefix { $0 == " " }.count == textColumn && quote.contains("↳ @alice"), "\(lines[numbered])\n\(quote)")
        #expect(out.contains("Topic: Swift 6 on Linux"))
        #expect(out.contains("<alice> @bob have a look  [👍 1]"))
        #expect(out.contains("Deleted message 2 in #swift"))
        #expect(out.contains("2. [") && out.contains("<bob> (deleted)"))
        #expect(out.contains("last signed in"))
    }
}
