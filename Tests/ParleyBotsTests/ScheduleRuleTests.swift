import Foundation
import ParleyBots
import ParleyCore
import Testing

/// Cron expressions and schedule rules, as a plugin's `schedule` action gives them.
@Suite struct ScheduleRuleTests {
    static func date(_ text: String) throws -> Date { try #require(ISO8601DateFormatter().date(from: text)) }
    static let utc = TimeZone(identifier: "UTC")!
    static let paris = TimeZone(identifier: "Europe/Paris")!

    @Test func cronFieldsListsRangesStepsAndNames() throws {
        let weekdays = try CronExpression("30 9 * * mon-fri")
        // Saturday 2026-11-28 → Monday 2026-11-30 09:30.
        #expect(weekdays.next(after: try Self.date("2026-11-28T10:00:00Z"), in: Self.utc) == (try Self.date("2026-11-30T09:30:00Z")))
        let steps = try CronExpression("*/15 8-9 * * *")
        #expect(steps.next(after: try Self.date("2026-11-30T08:44:59Z"), in: Self.utc) == (try Self.date("2026-11-30T08:45:00Z")))
        #expect(steps.next(after: try Self.date("2026-11-30T09:45:00Z"), in: Self.utc) == (try Self.date("2026-12-01T08:00:00Z")))
        // Day of the month or weekday, as cron has it: the 1st, or any Friday.
        let either = try CronExpression("0 0 1 * fri")
        #expect(either.next(after: try Self.date("2026-11-28T00:00:00Z"), in: Self.utc) == (try Self.date("2026-12-01T00:00:00Z")))
        #expect(either.next(after: try Self.date("2026-12-01T00:00:00Z"), in: Self.utc) == (try Self.date("2026-12-04T00:00:00Z")))
        #expect(try CronExpression("@daily").description == "0 0 * * *")
        #expect(
            try CronExpression("0 12 * jan,jul sun").next(after: try Self.date("2026-11-30T00:00:00Z"), in: Self.utc)
                == (try Self.date("2027-01-03T12:00:00Z")))
        // Sunday is 0 or 7.
        #expect(
            try CronExpression("0 0 * * 7").next(after: try Self.date("2026-11-30T00:00:00Z"), in: Self.utc)
                == (try Self.date("2026-12-06T00:00:00Z")))
    }

    @Test func cronFollowsTheTimeZoneAcrossDaylightSaving() throws {
        let morning = try CronExpression("0 9 * * *")
        // 09:00 in Paris is 08:00 UTC in winter, 07:00 UTC in summer.
        #expect(morning.next(after: try Self.date("2026-11-30T00:00:00Z"), in: Self.paris) == (try Self.date("2026-11-30T08:00:00Z")))
        #expect(morning.next(after: try Self.date("2026-07-01T00:00:00Z"), in: Self.paris) == (try Self.date("2026-07-01T07:00:00Z")))
        // 02:30 does not exist in Paris on 2026-03-29: that day is skipped.
        let skipped = try CronExpression("30 2 * * *")
        #expect(skipped.next(after: try Self.date("2026-03-28T02:00:00Z"), in: Self.paris) == (try Self.date("2026-03-30T00:30:00Z")))
    }

    @Test(arguments: [
        "", "* * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 8", "5-1 * * * *", "*/0 * * * *",
        "a * * * *", "1,,2 * * * *", String(repeating: "1,", count: 150) + "1 * * * *",
    ])
    func badCronExpressionsAreRefused(_ text: String) {
        #expect(throws: ParleyError.self) { try CronExpression(text) }
    }

    @Test func anExpressionThatNeverComesIsRefused() throws {
        let never = try CronExpression("0 0 30 2 *")
        #expect(never.next(after: Date(), in: Self.utc) == nil)
        #expect(throws: ParleyError.self) {
            try BotSchedule.parse(["name": .string("never"), "cron": .string("0 0 30 2 *")], now: Date())
        }
    }

    @Test func rulesAndTheirBounds() throws {
        let now = try Self.date("2026-11-30T12:00:00Z")
        let later = try BotSchedule.parse(["name": .string("r-1"), "after": .number(600), "data": .object(["x": .number(1)])], now: now)
        #expect(later.next == now.addingTimeInterval(600))
        #expect(later.following(due: later.next, now: later.next) == nil, "a schedule that fires once is gone after")
        let every = try BotSchedule.parse(["name": .string("beat"), "every": .number(60)], now: now)
        // Down for ten minutes and a half: the next is the first time after now, not each missed one.
        #expect(every.following(due: every.next, now: every.next.addingTimeInterval(630)) == every.next.addingTimeInterval(660))
        let refused: [[String: JSONValue]] = [
            [:], ["name": .string("x")], ["name": .string("bad name"), "after": .number(1)],
            ["name": .string(String(repeating: "a", count: 65)), "after": .number(1)],
            ["name": .string("x"), "after": .number(1), "every": .number(1)], ["name": .string("x"), "after": .number(-1)],
            ["name": .string("x"), "every": .number(0)], ["name": .string("x"), "every": .number(1e300)],
            ["name": .string("x"), "after": .number(.nan)], ["name": .string("x"), "at": .string("tomorrow")],
            ["name": .string("x"), "at": .string("2028-01-01T00:00:00Z")],
            ["name": .string("x"), "cron": .string("* * * * *"), "tz": .string("Mars/Olympus")],
            ["name": .string("x"), "every": .number(5), "tz": .string("UTC")],
            ["name": .string("x"), "after": .number(1), "data": .string(String(repeating: "d", count: 5000))],
        ]
        for fields in refused {
            #expect(throws: ParleyError.self, "\(fields)") { try BotSchedule.parse(fields, now: now) }
        }
    }
}
