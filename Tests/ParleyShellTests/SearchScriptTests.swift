import Foundation
import Testing

/// `/search` with every filter, through the binary: embedded, and against a server, where
/// the filters travel in the `search` op.
@Suite(.timeLimit(.minutes(10))) struct SearchScriptTests {
    @Test(arguments: ParleyBinary.Mode.allCases) func searchFiltersBySenderChatDateAndShowsContext(_ mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        defer { parley.remove() }
        let start = Date()
        #expect(
            try await parley.run(
                """
                /register bob@example.com --handle bob --password secret-bob1
                /create #ops
                /create #dev
                /logout
                /register ann@example.com --handle ann --password secret-ann1
                /join #ops
                /join #dev
                /send #ops deploy on monday
                /logout
                /login @bob --password secret-bob1
                /send #ops deploy is green
                /send #ops lunch at noon
                /send #ops coffee
                /send #ops tea
                /send #dev deploy the docs
                /logout
                /login @ann --password secret-ann1
                /send #ops deploy again friday
                """
            ).status == 0)
        func search(_ arguments: String) async throws -> [String] {
            let result = try await parley.run("/search \(arguments)")
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            // `4. [14:03] #ops <bob> deploy is green` → `#ops <bob> deploy is green`
            return result.lines.map { $0.replacingOccurrences(of: #"\[\d\d:\d\d\] "#, with: "", options: .regularExpression) }
        }
        #expect(
            try await search("deploy") == [
                "6. #ops <ann> deploy again friday", "1. #dev <bob> deploy the docs", "2. #ops <bob> deploy is green",
                "1. #ops <ann> deploy on monday",
            ])
        #expect(try await search("deploy from:@bob") == ["1. #dev <bob> deploy the docs", "2. #ops <bob> deploy is green"])
        #expect(try await search("deploy in:#ops from:bob") == ["2. #ops <bob> deploy is green"])
        #expect(try await search("from:me") == ["6. #ops <ann> deploy again friday", "1. #ops <ann> deploy on monday"])
        #expect(try await search("in:#dev") == ["1. #dev <bob> deploy the docs"])
        #expect(try await search("deploy #dev") == ["1. #dev <bob> deploy the docs"], "the older form: a chat as the last word")

        // Dates in local time, to the minute or second; after: counts from its moment on.
        let minute = Self.local(start.addingTimeInterval(-60), "yyyy-MM-dd'T'HH:mm")
        #expect(try await search("deploy after:\(minute)").count == 4)
        #expect(try await search("deploy before:\(minute)") == ["No messages found"])
        #expect(try await search("deploy before:2001-01-01") == ["No messages found"])
        #expect(try await search("deploy on:2001-01-01") == ["No messages found"])
        #expect(try await search("deploy after:7d").count == 4)
        // on: is the local day; the day each message was sent comes from its own time,
        // so a run across midnight expects what it should.
        let found = try await parley.run("/search deploy", arguments: ["--json"]).lines.compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let sent = try #require(found.first?["data"] as? [[String: Any]]).compactMap { $0["sent_at"] as? String }
        #expect(sent.count == 4)
        let days = sent.compactMap { try? Date($0, strategy: .iso8601) }.map { Self.local($0, "yyyy-MM-dd") }
        let today = try #require(days.last)
        #expect(try await search("deploy on:\(today)").count == days.filter { $0 == today }.count)

        // Context: neighbours either side, the hits marked, overlapping blocks merged.
        let context = try await search("deploy in:#ops --context 1")
        #expect(
            context == [
                "  5. #ops <bob> tea", "> 6. #ops <ann> deploy again friday", "--",
                "> 1. #ops <ann> deploy on monday", "> 2. #ops <bob> deploy is green", "  3. #ops <bob> lunch at noon",
            ])

        for (arguments, message) in [
            ("deploy on:2026-02-30", "'2026-02-30' is not a date on the calendar"),
            ("deploy after:today before:yesterday", "after must be earlier than before"),
            ("deploy --context 9", "--context is 0 to 5 messages either side"),
            ("deploy from:@nobody", "no user @nobody"),
            ("deploy before:soon", "'soon' is not a date"),
            ("", "/search WORDS"),
        ] {
            let result = try await parley.run("/search \(arguments)")
            #expect(result.status != 0 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("usage: usage"), "\(result.stderr)")
        }
    }

    static func local(_ date: Date, _ format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = format
        return formatter.string(from: date)
    }
}
