public import Foundation
public import ParleyCore

/// A named schedule of a bot: when the host sends it a `tick`. Kept in the bot state
/// store with its next due time, so it outlives the plugin, the shell or `parley bot`.
public struct BotSchedule: Hashable, Sendable {
    public enum Rule: Hashable, Sendable {
        /// Once, at a time (`at`, or `after` seconds from when it was asked).
        case once(Date)
        /// Every so many seconds from when it was asked.
        case every(seconds: Int64)
        /// At the times a cron expression names, in a time zone.
        case cron(CronExpression, TimeZone)
    }

    public var name: String
    public var rule: Rule
    /// What the plugin gave with it (`data`), handed back in each tick.
    public var data: JSONValue?
    /// When it fires next.
    public var next: Date

    /// The most schedules one bot may keep.
    public static let maxPerBot = 100
    public static let maxNameLength = 64
    /// The most JSON a schedule's `data` may hold.
    public static let maxDataBytes = 4096
    /// How far ahead a delay, an interval or a time may be.
    public static let maxAhead: Int64 = 366 * 86400

    public init(name: String, rule: Rule, data: JSONValue?, next: Date) {
        self.name = name
        self.rule = rule
        self.data = data
        self.next = next
    }

    /// A schedule from an action's fields: `name` and one of `at` (ISO 8601), `after`
    /// (seconds), `every` (seconds) or `cron` (with `tz`, default UTC); `data` optional.
    public static func parse(_ object: [String: JSONValue], now: Date) throws(ParleyError) -> BotSchedule {
        guard let name = object["name"]?.string, isName(name) else {
            throw ParleyError(
                .invalidArgument, "a schedule needs a \"name\": up to \(maxNameLength) letters, digits and '-', '_', '.', ':'")
        }
        let given = ["at", "after", "every", "cron"].filter { object[$0] != nil }
        guard given.count == 1 else {
            throw ParleyError(.invalidArgument, "a schedule has one of \"at\", \"after\", \"every\" or \"cron\"")
        }
        var data = object["data"]
        if data == .null { data = nil }
        if let data, data.jsonData.count > maxDataBytes {
            throw ParleyError(.invalidArgument, "a schedule's \"data\" is at most \(maxDataBytes) bytes of JSON")
        }
        if object["tz"] != nil, given[0] != "cron" { throw ParleyError(.invalidArgument, "\"tz\" goes with \"cron\"") }
        let rule: Rule
        switch given[0] {
        case "at":
            guard let text = object["at"]?.string, let at = parseTime(text) else {
                throw ParleyError(.invalidArgument, "\"at\" is a time in ISO 8601, like \"2026-12-01T09:00:00Z\"")
            }
            guard at.timeIntervalSince(now) <= Double(maxAhead) else {
                throw ParleyError(.invalidArgument, "\"at\" is at most 366 days ahead")
            }
            rule = .once(at)
        case "after":
            let seconds = try self.seconds(object["after"], "after", minimum: 0)
            rule = .once(now.addingTimeInterval(Double(seconds)))
        case "every":
            rule = .every(seconds: try self.seconds(object["every"], "every", minimum: 1))
        default:
            guard let text = object["cron"]?.string else {
                throw ParleyError(.invalidArgument, "\"cron\" is text, like \"0 9 * * mon-fri\"")
            }
            let zoneName = object["tz"]?.string ?? "UTC"
            guard object["tz"] == nil || object["tz"]?.string != nil, let zone = TimeZone(identifier: zoneName) else {
                throw ParleyError(.invalidArgument, "\"tz\" is a time zone name, like \"Europe/Paris\" or \"UTC\"")
            }
            rule = .cron(try CronExpression(text), zone)
        }
        var schedule = BotSchedule(name: name, rule: rule, data: data, next: now)
        guard let next = schedule.firstTime(from: now) else {
            throw ParleyError(.invalidArgument, "\"\(text(of: rule))\" never comes in the next five years")
        }
        schedule.next = next
        return schedule
    }

    /// When a new schedule first fires.
    private func firstTime(from now: Date) -> Date? {
        switch rule {
        case .once(let at): at
        case .every(let seconds): now.addingTimeInterval(Double(seconds))
        case .cron(let expression, let zone): expression.next(after: now, in: zone)
        }
    }

    /// When it fires after firing for `due` at `now`: a repeating schedule's next time
    /// after now, so the times missed while the host was down fire once, not each; nil
    /// for one that fires once.
    public func following(due: Date, now: Date) -> Date? {
        switch rule {
        case .once: return nil
        case .every(let seconds):
            let step = Double(seconds)
            let behind = max(0, now.timeIntervalSince(due))
            return due.addingTimeInterval(step * (floor(behind / step) + 1))
        case .cron(let expression, let zone):
            return expression.next(after: max(due, now), in: zone)
        }
    }

    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= maxNameLength
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.:".unicodeScalars.contains($0)
            }
    }

    private static func seconds(_ value: JSONValue?, _ field: String, minimum: Int64) throws(ParleyError) -> Int64 {
        guard case .number(let number)? = value, number.isFinite, number >= Double(minimum), number <= Double(maxAhead) else {
            throw ParleyError(.invalidArgument, "\"\(field)\" is a number of seconds, \(minimum) to \(maxAhead) (366 days)")
        }
        return Int64(number.rounded(.up))
    }

    static func parseTime(_ text: String) -> Date? {
        guard text.count <= 40 else { return nil }
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return withFraction.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    private static func text(of rule: Rule) -> String {
        if case .cron(let expression, _) = rule { return expression.description }
        return "the time"
    }

    /// As a plugin sees it in a `schedules` result: name, rule, next time, data.
    public var json: JSONValue {
        var object = rule.fields
        object["name"] = .string(name)
        object["next"] = .string(Self.format(next))
        if let data { object["data"] = data }
        return .object(object)
    }
}

extension BotSchedule.Rule {
    /// The rule's own fields, as given (with `at` for a delay), for a listing and for storage.
    var fields: [String: JSONValue] {
        switch self {
        case .once(let at): ["at": .string(BotSchedule.format(at))]
        case .every(let seconds): ["every": .number(Double(seconds))]
        case .cron(let expression, let zone): ["cron": .string(expression.description), "tz": .string(zone.identifier)]
        }
    }

    /// The rule stored as its fields.
    init?(fields: [String: JSONValue]) {
        if let at = fields["at"]?.string.flatMap(BotSchedule.parseTime) {
            self = .once(at)
        } else if case .number(let seconds)? = fields["every"], seconds >= 1 {
            self = .every(seconds: Int64(seconds))
        } else if let text = fields["cron"]?.string, let expression = try? CronExpression(text),
            let zone = TimeZone(identifier: fields["tz"]?.string ?? "UTC")
        {
            self = .cron(expression, zone)
        } else {
            return nil
        }
    }
}
