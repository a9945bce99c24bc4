import Foundation
import ParleyCore

/// `/search WORDS [from:@h] [in:#g|@h|#g/N] [before:DATE] [after:DATE] [on:DATE] [--context N]`.
extension Shell {
    static let searchUsage = "/search WORDS [from:@H] [in:#G|@H|#G/N] [before:DATE] [after:DATE] [on:DATE] [--context N]"

    func search(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["context", "limit"])
        var search = MessageSearch(words: "", limit: 50)
        var words: [String] = []
        for word in options.positional {
            guard let colon = word.firstIndex(of: ":"), colon != word.startIndex else {
                words.append(word)
                continue
            }
            let value = String(word[word.index(after: colon)...])
            switch word[..<colon].lowercased() {
            case "from": search.from = value == "me" ? try requireMe().id : try await user(value.hasPrefix("@") ? value : "@" + value).id
            case "in":
                // `in:#ops/12`: the thread of message 12 of #ops.
                let (chat, found) = try await existingChat(value)
                search.chat = chat.id
                search.thread = found.thread
            case "before": search.before = try SearchDate.parse(value, now: Date()).start
            case "after": search.after = try SearchDate.parse(value, now: Date()).start
            case "on":
                let day = try SearchDate.parse(value, now: Date())
                guard day.isDay else { throw ParleyError(.usage, "on: takes a day (like 2026-11-29 or yesterday), not a time") }
                (search.after, search.before) = (day.start, day.end)
            default: words.append(word)
            }
        }
        // The older form: a chat as the last word (`/search deploy #ops`).
        if search.chat == nil, words.count > 1, let last = words.last, last.hasPrefix("#") || last.hasPrefix("@") {
            search.chat = try await existingChat(last).0.id
            words.removeLast()
        }
        search.words = words.joined(separator: " ")
        guard !words.isEmpty || search.isFiltered else { throw ParleyError(.usage, Self.searchUsage) }
        if let context = try options.integer("context") {
            guard (0...MessageSearch.maxContext).contains(context) else {
                throw ParleyError(.usage, "--context is 0 to \(MessageSearch.maxContext) messages either side")
            }
            search.context = context
        }
        if let limit = try options.integer("limit") { search.limit = limit }
        let hits = try await service.search(search)
        let lines = search.context > 0 ? try await contextLines(hits) : try await numberedLines(hits.map(\.message))
        output.result("search", lines.isEmpty ? ["No messages found"] : lines, json: hits)
    }

    /// Each hit among its neighbours, oldest first, marked `>`; hits whose neighbours
    /// meet share one block, and blocks are parted by `--`, as grep parts them.
    private func contextLines(_ hits: [SearchHit]) async throws -> [String] {
        var blocks: [(chat: ChatID, messages: [Int64: Message], hits: Set<Int64>)] = []
        for hit in hits {
            let span = [hit.before, [hit.message], hit.after].joined()
            let low = span.map(\.seq).min() ?? hit.message.seq
            let high = span.map(\.seq).max() ?? hit.message.seq
            if let last = blocks.indices.last, blocks[last].chat == hit.message.chatID,
                let lastLow = blocks[last].messages.keys.min(), let lastHigh = blocks[last].messages.keys.max(),
                low <= lastHigh + 1, high + 1 >= lastLow
            {
                for message in span { blocks[last].messages[message.seq] = message }
                blocks[last].hits.insert(hit.message.seq)
            } else {
                blocks.append(
                    (hit.message.chatID, Dictionary(span.map { ($0.seq, $0) }, uniquingKeysWith: { a, _ in a }), [hit.message.seq]))
            }
        }
        var lines: [String] = []
        for block in blocks {
            if !lines.isEmpty { lines.append("--") }
            let ordered = block.messages.values.sorted { $0.seq < $1.seq }
            for (message, line) in zip(ordered, try await numberedLines(ordered)) {
                let hit = block.hits.contains(message.seq)
                let marked = (hit ? "> " : "  ") + line.replacingOccurrences(of: "\n", with: "\n  ")
                lines.append(hit || output.style != .colour ? marked : Format.paint(marked, .dim))
            }
        }
        return lines
    }
}

/// A date in a search filter, in local time: `2026-11-29`, `2026-11-29T14:30`, `today`,
/// `yesterday`, or a time ago (`2h`, `7d`).
struct SearchDate {
    var start: Date
    /// The day after, for a whole day (`on:`); nil for a moment.
    var end: Date?
    var isDay: Bool { end != nil }

    static func parse(_ text: String, now: Date) throws(ParleyError) -> SearchDate {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let today = calendar.startOfDay(for: now)
        func day(_ start: Date) -> SearchDate { SearchDate(start: start, end: calendar.date(byAdding: .day, value: 1, to: start)) }
        switch text.lowercased() {
        case "today": return day(today)
        case "yesterday": return day(calendar.date(byAdding: .day, value: -1, to: today) ?? today)
        default: break
        }
        if let last = text.last, "smhd".contains(last), let ago = try? DurationText.parse(text) {
            return SearchDate(start: now - TimeInterval(ago.components.seconds))
        }
        let parts = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        let ymd = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        let clock = parts.count > 1 ? parts[1].split(separator: ":", omittingEmptySubsequences: false) : []
        let hm = clock.compactMap { Int($0) }
        guard ymd.count == 3, let year = ymd[0], let month = ymd[1], let dayOfMonth = ymd[2], (1970...9999).contains(year),
            hm.count == clock.count, hm.count != 1, hm.count <= 3
        else { throw ParleyError(.usage, "'\(text)' is not a date (like 2026-11-29, 2026-11-29T14:30, today, yesterday or 7d)") }
        let components = DateComponents(
            year: year, month: month, day: dayOfMonth, hour: hm.first ?? 0, minute: hm.count > 1 ? hm[1] : 0,
            second: hm.count > 2 ? hm[2] : 0)
        // The calendar rolls 2026-02-30 over into March: a date that does not read back
        // as written does not exist.
        guard components.isValidDate(in: calendar), let start = calendar.date(from: components) else {
            throw ParleyError(.usage, "'\(text)' is not a date on the calendar")
        }
        return hm.isEmpty ? day(start) : SearchDate(start: start)
    }
}
