public import Foundation
public import ParleyCore

/// A cron expression of five fields, `minute hour day-of-month month day-of-week`, each
/// `*`, a number, a range `a-b`, a step `*/n` or `a-b/n`, or a comma list of those;
/// months and weekdays also by name (`jan`, `mon`; Sunday is 0 or 7). As in cron, when
/// both the day of the month and the weekday are restricted, a day matching either
/// runs. `@hourly`, `@daily` (`@midnight`), `@weekly`, `@monthly`, `@yearly` (`@annually`).
public struct CronExpression: Hashable, Sendable, CustomStringConvertible {
    public let description: String
    let minutes: Set<Int>
    let hours: Set<Int>
    let days: Set<Int>
    let months: Set<Int>
    let weekdays: Set<Int>
    let daysRestricted: Bool
    let weekdaysRestricted: Bool

    /// The longest expression taken.
    public static let maxLength = 200

    private static let macros = [
        "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0",
        "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
    ]
    private static let monthNames = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

    public init(_ text: String) throws(ParleyError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty, trimmed.count <= Self.maxLength else {
            throw ParleyError(.invalidArgument, "a cron expression is five fields, like \"0 9 * * mon-fri\"")
        }
        let expanded = Self.macros[trimmed] ?? trimmed
        let fields = expanded.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard fields.count == 5 else {
            throw ParleyError(
                .invalidArgument,
                "a cron expression is five fields (minute hour day month weekday), like \"0 9 * * mon-fri\"; got \(fields.count)")
        }
        description = fields.joined(separator: " ")
        minutes = try Self.field(fields[0], "minute", 0...59, names: [])
        hours = try Self.field(fields[1], "hour", 0...23, names: [])
        days = try Self.field(fields[2], "day of the month", 1...31, names: [])
        months = try Self.field(fields[3], "month", 1...12, names: Self.monthNames, firstName: 1)
        weekdays = Set(try Self.field(fields[4], "weekday", 0...7, names: Self.dayNames).map { $0 == 7 ? 0 : $0 })
        daysRestricted = fields[2] != "*" && !fields[2].hasPrefix("*/")
        weekdaysRestricted = fields[4] != "*" && !fields[4].hasPrefix("*/")
    }

    private static func field(_ text: String, _ what: String, _ range: ClosedRange<Int>, names: [String], firstName: Int = 0)
        throws(ParleyError) -> Set<Int>
    {
        func value(_ token: Substring) throws(ParleyError) -> Int {
            if let index = names.firstIndex(of: String(token)) { return index + firstName }
            guard let number = Int(token), range.contains(number) else {
                throw ParleyError(.invalidArgument, "\"\(token)\" is not a \(what) (\(range.lowerBound)–\(range.upperBound))")
            }
            return number
        }
        var result = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = part.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2, !pieces[0].isEmpty else {
                throw ParleyError(.invalidArgument, "\"\(part)\" is not a \(what) field")
            }
            var step = 1
            if pieces.count == 2 {
                guard let given = Int(pieces[1]), given >= 1, given <= range.upperBound else {
                    throw ParleyError(.invalidArgument, "\"\(pieces[1])\" is not a step for the \(what)")
                }
                step = given
            }
            let bounds: ClosedRange<Int>
            if pieces[0] == "*" {
                bounds = range
            } else if let dash = pieces[0].firstIndex(of: "-") {
                let low = try value(pieces[0][..<dash])
                let high = try value(pieces[0][pieces[0].index(after: dash)...])
                guard low <= high else { throw ParleyError(.invalidArgument, "\"\(pieces[0])\": a range goes from low to high") }
                bounds = low...high
            } else {
                let single = try value(pieces[0])
                // `5/15` means from 5 to the end in steps of 15, as cron has it.
                bounds = pieces.count == 2 ? single...range.upperBound : single...single
            }
            result.formUnion(stride(from: bounds.lowerBound, through: bounds.upperBound, by: step))
        }
        return result
    }

    /// The first time strictly after `date` that matches, in `zone`; nil if none within
    /// `horizonDays` (an expression such as `0 0 30 2 *` never matches). A local time that
    /// a daylight-saving change skips does not run that day; one that comes twice runs once.
    public func next(after date: Date, in zone: TimeZone, horizonDays: Int = 366 * 5) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let sortedHours = hours.sorted()
        let sortedMinutes = minutes.sorted()
        guard let firstDay = calendar.dateInterval(of: .day, for: date)?.start else { return nil }
        for offset in 0...horizonDays {
            guard let day = calendar.date(byAdding: .day, value: offset, to: firstDay) else { return nil }
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: day)
            guard let year = parts.year, let month = parts.month, let dayOfMonth = parts.day, let weekday = parts.weekday,
                months.contains(month), matches(day: dayOfMonth, weekday: weekday - 1)
            else { continue }
            for hour in sortedHours {
                for minute in sortedMinutes {
                    let wanted = DateComponents(year: year, month: month, day: dayOfMonth, hour: hour, minute: minute)
                    guard let candidate = calendar.date(from: wanted), candidate > date else { continue }
                    // A skipped local time comes back as another hour: not this one.
                    let back = calendar.dateComponents([.day, .hour, .minute], from: candidate)
                    if back.day == dayOfMonth, back.hour == hour, back.minute == minute { return candidate }
                }
            }
        }
        return nil
    }

    private func matches(day: Int, weekday: Int) -> Bool {
        switch (daysRestricted, weekdaysRestricted) {
        case (true, true): days.contains(day) || weekdays.contains(weekday)
        case (true, false): days.contains(day)
        case (false, true): weekdays.contains(weekday)
        case (false, false): true
        }
    }
}
