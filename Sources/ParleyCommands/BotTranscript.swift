import Foundation
import ParleyCore
import ParleyShell

/// A scripted conversation for `parley bot test`: who is there, what they say, and what
/// the bot must answer. One step a line; `#` at the start of a line (then a space, or
/// nothing) is a comment.
///
/// ```
/// people alice bob                 # the first makes the bot account and the groups
/// group #team alice:owner bob      # roles: owner, admin, voiced, member (the default)
/// bot @reminder                    # the bot's handle (default: the plugin's file name)
/// clock 2026-11-30T08:55:00Z       # where the controlled clock starts (default: now)
/// in #team                         # where what follows is said (default: the first group)
/// alice> !remind 10m stand-up
/// in #team thread                  # …or in the thread of the last line said there
/// bob> !remind 5m coffee           # (in #team thread 3: the thread of message 3)
/// <thread OK @bob, in 5m: coffee   # the answer must come in that thread (<#team: the chat's own flow)
/// < OK @alice, in 10m: stand-up    # the bot's next message, exactly (\n for a new line)
/// <#team OK @alice, in 10m: …      # …and in that chat (<direct: a direct message)
/// wait 10m                         # the clock moves on: schedules due by then fire
/// < /^⏰ @alice: stand-up$/         # or a pattern (a regular expression between slashes)
/// join carol                      # carol is added to the current group (leave carol)
/// in direct                        # each speaker's direct chat with the bot
/// bob> !help
/// timeout 10s                      # how long each answer may take from here on (default 5 s)
/// ```
struct BotTranscript {
    struct Group {
        var handle: String
        var isPublic: Bool
        var members: [(handle: String, role: Role)]
    }

    enum Place: Equatable {
        /// A group, or a thread of it: of message `thread`, or with 0 of the last line
        /// said in the group.
        case group(String, thread: Int64? = nil)
        case direct
    }

    enum Expected {
        case text(String)
        case pattern(NSRegularExpression, source: String)

        var shown: String {
            switch self {
            case .text(let text): text.replacingOccurrences(of: "\n", with: "\\n")
            case .pattern(_, let source): "/\(source)/"
            }
        }

        func matches(_ text: String) -> Bool {
            switch self {
            case .text(let expected): return expected == text
            case .pattern(let regex, _):
                return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            }
        }
    }

    enum Step {
        case say(line: Int, who: String, place: Place, text: String)
        /// The bot's next message; in `place` (`#group` or `direct`) when given.
        case expect(line: Int, Expected, place: String?, timeout: Duration)
        case wait(line: Int, seconds: TimeInterval, shown: String)
        /// A person joins (`join`, added by the group's owner) or leaves (`leave`) a group.
        case membership(line: Int, who: String, group: String, joins: Bool)
    }

    var people: [String] = []
    var groups: [Group] = []
    var bot: String?
    var clockStart: Date?
    var steps: [Step] = []

    /// The most lines a transcript may have.
    static let maxLines = 10_000

    struct Problem: Error, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    init(text: String) throws(Problem) {
        var place: Place?
        var timeout = Duration.seconds(5)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count <= Self.maxLines else {
            throw Problem(line: Self.maxLines + 1, message: "a transcript has at most \(Self.maxLines) lines")
        }
        for (index, raw) in lines.enumerated() {
            let number = index + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line == "#" || line.hasPrefix("# ") || line.hasPrefix("#!") { continue }
            func fail(_ message: String) -> Problem { Problem(line: number, message: message) }
            if line.hasPrefix("<") {
                var body = line.dropFirst().trimmingCharacters(in: .whitespaces)
                // `<#team text`, `<direct text` and `<thread text`: the answer must come in
                // that chat (its own flow), or in the thread lines are said in.
                var place: String?
                if line.hasPrefix("<#") || line.hasPrefix("<direct ") || line == "<direct" || line.hasPrefix("<thread ")
                    || line == "<thread"
                {
                    let word = line.dropFirst().prefix { $0 != " " }
                    place = word == "direct" || word == "thread" ? String(word) : "#" + word.dropFirst().lowercased()
                    body = line.dropFirst(1 + word.count).trimmingCharacters(in: .whitespaces)
                }
                if body.count >= 2, body.hasPrefix("/"), body.hasSuffix("/") {
                    let source = String(body.dropFirst().dropLast())
                    guard let regex = try? NSRegularExpression(pattern: source) else { throw fail("not a regular expression: \(source)") }
                    steps.append(.expect(line: number, .pattern(regex, source: source), place: place, timeout: timeout))
                } else {
                    steps.append(
                        .expect(line: number, .text(body.replacingOccurrences(of: "\\n", with: "\n")), place: place, timeout: timeout))
                }
                continue
            }
            if let marker = line.firstIndex(of: ">"), !line[..<marker].contains(" ") {
                let who = Self.handle(line[..<marker])
                guard people.contains(who) else { throw fail("@\(who) is not among the people (people \(who) …)") }
                let text = line[line.index(after: marker)...].trimmingCharacters(in: .whitespaces)
                guard !text.isEmpty else { throw fail("nothing said after \(who)>") }
                let chosen: Place = place ?? groups.first.map { .group($0.handle) } ?? .direct
                if case .group(let handle, _) = chosen,
                    !(groups.first { $0.handle == handle }?.members.contains { $0.handle == who } ?? false)
                {
                    throw fail("@\(who) is not in #\(handle)")
                }
                steps.append(.say(line: number, who: who, place: chosen, text: text))
                continue
            }
            let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            let rest = Array(words.dropFirst())
            switch words[0] {
            case "people":
                guard !rest.isEmpty else { throw fail("people names one or more handles") }
                for word in rest {
                    let handle = Self.handle(Substring(word))
                    guard (try? Limits.userHandle(handle)) != nil else { throw fail("\(word) is not a handle") }
                    if !people.contains(handle) { people.append(handle) }
                }
            case "group":
                guard let name = rest.first, name.hasPrefix("#"), name.count > 1 else { throw fail("group #NAME [public] PERSON[:ROLE] …") }
                var group = Group(handle: String(name.dropFirst()).lowercased(), isPublic: false, members: [])
                for word in rest.dropFirst() {
                    if word == "public" {
                        group.isPublic = true
                        continue
                    }
                    let parts = word.split(separator: ":", maxSplits: 1).map(String.init)
                    let handle = Self.handle(Substring(parts[0]))
                    guard people.contains(handle) else { throw fail("@\(handle) is not among the people (declare people first)") }
                    guard let role = parts.count == 2 ? Role(rawValue: parts[1]) : .member else {
                        throw fail("\(parts[1]) is not a role (owner, admin, voiced, member)")
                    }
                    group.members.append((handle, role))
                }
                guard !group.members.isEmpty else { throw fail("a group needs at least one person") }
                if !group.members.contains(where: { $0.role == .owner }) { group.members[0].role = .owner }
                guard group.members.filter({ $0.role == .owner }).count == 1 else { throw fail("a group has one owner") }
                groups.append(group)
            case "bot":
                guard rest.count == 1 else { throw fail("bot @HANDLE") }
                bot = Self.handle(Substring(rest[0]))
            case "clock":
                guard steps.isEmpty else { throw fail("clock goes before the first step") }
                // Seconds whole or with a fraction, as a tick's `due` reads.
                let precise = ISO8601DateFormatter()
                precise.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
                guard rest.count == 1, let start = ISO8601DateFormatter().date(from: rest[0]) ?? precise.date(from: rest[0]) else {
                    throw fail("clock TIME, in ISO 8601 with a zone (2026-11-30T08:55:00Z)")
                }
                clockStart = start
            case "in":
                let usage = "in #GROUP [thread [N]], or in direct"
                guard (1...3).contains(rest.count) else { throw fail(usage) }
                if rest[0] == "direct" {
                    guard rest.count == 1 else { throw fail(usage) }
                    place = .direct
                } else {
                    let handle = String(rest[0].drop { $0 == "#" }).lowercased()
                    guard groups.contains(where: { $0.handle == handle }) else {
                        throw fail("#\(handle) is not declared (group #\(handle) …)")
                    }
                    guard rest.count > 1 else {
                        place = .group(handle)
                        continue
                    }
                    guard rest[1] == "thread" else { throw fail(usage) }
                    let seq = rest.count == 3 ? Int64(rest[2]) : 0
                    guard let seq, seq >= 0 else { throw fail("in #\(handle) thread N: N is a message's number") }
                    place = .group(handle, thread: seq)
                }
            case "join", "leave":
                guard rest.count == 1, case .group(let group, _)? = place ?? groups.first.map({ .group($0.handle) }) else {
                    throw fail("\(words[0]) PERSON, in a group")
                }
                let who = Self.handle(Substring(rest[0]))
                guard people.contains(who) else { throw fail("@\(who) is not among the people") }
                steps.append(.membership(line: number, who: who, group: group, joins: words[0] == "join"))
            case "wait", "timeout":
                guard rest.count == 1, let seconds = Self.seconds(rest[0]) else {
                    throw fail("\(words[0]) DURATION, like 10m, 90s or 1h30m")
                }
                if words[0] == "wait" {
                    steps.append(.wait(line: number, seconds: seconds, shown: rest[0]))
                } else {
                    guard seconds > 0, seconds <= 600 else { throw fail("a timeout is above 0 and at most 10m") }
                    timeout = .milliseconds(Int64(seconds * 1000))
                }
            default:
                throw fail("not a step: \(line.prefix(60)) (NAME> text, < answer, wait, in, timeout)")
            }
        }
        guard !people.isEmpty else { throw Problem(line: 1, message: "a transcript names its people first (people alice bob)") }
    }

    private static func handle(_ text: Substring) -> String {
        String(text.drop { $0 == "@" }).lowercased()
    }

    /// `90s`, `10m`, `1h30m`, `2d`: a sum of whole numbers with units, up to 400 days.
    static func seconds(_ text: String) -> TimeInterval? {
        guard let total = DurationText.compound(text), total <= 400 * 86400 else { return nil }
        return total
    }
}
