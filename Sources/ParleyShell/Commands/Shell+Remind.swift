import Foundation
import ParleyCore

/// `/remind [#G|@H] WHEN TEXT` and `/reminders [cancel ID]`: reminders kept by the
/// server, told to the user alone when they come due (or when they next connect).
extension Shell {
    func remind(_ input: inout CommandInput) async throws {
        let usage = "/remind [#G|@H] WHEN TEXT (WHEN: 10m, 1h30m, 2d, 14:30, or 2026-12-01T09:00)"
        let word = try input.target()
        guard let when = try input.word() else { throw ParleyError(.usage, usage) }
        let text = try input.text()
        guard !text.isEmpty else { throw ParleyError(.usage, usage) }
        let due = try Self.reminderTime(when, now: Date())
        var chat: Chat?
        if let word {
            // `target` already finds a direct chat with a person (nil: not written to yet).
            chat = try await target(word).chat
        } else {
            chat = current?.chat
        }
        let reminder = try await service.remind(text, at: due, in: chat?.id)
        let place = reminder.place.map { " (set in \($0))" } ?? ""
        output.result(
            "remind", ["Reminder \(reminder.id) at \(Self.reminderClock(reminder.dueAt))\(place): \(Sanitizer.line(reminder.text))"],
            json: reminder)
    }

    func reminders(_ input: inout CommandInput) async throws {
        if let word = try input.word() {
            guard word == "cancel", let text = try input.word(), let id = Int64(text) else {
                throw ParleyError(.usage, "/reminders [cancel ID]")
            }
            try noMoreArguments(input)
            try await service.cancelReminder(id)
            output.result("reminders", ["Cancelled reminder \(id)"], json: ["cancelled": id])
            return
        }
        let pending = try await service.reminders()
        let lines =
            pending.isEmpty
            ? ["No reminders pending (/remind 10m stand-up sets one)"]
            : pending.map { reminder in
                let place = reminder.place.map { "  \($0)" } ?? ""
                return "\(reminder.id)  \(Self.reminderClock(reminder.dueAt))\(place)  \(Sanitizer.line(reminder.text))"
            }
        output.result("reminders", lines, json: pending)
    }

    /// When a reminder is for: a delay (`90s`, `10m`, `1h30m`, `2d`), a time of day
    /// (`14:30`: today, or tomorrow once it has passed), or a local date and time.
    static func reminderTime(_ text: String, now: Date) throws(ParleyError) -> Date {
        if let seconds = DurationText.compound(text) { return now.addingTimeInterval(seconds) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        let clock = text.split(separator: ":", omittingEmptySubsequences: false)
        if clock.count == 2, let hour = Int(clock[0]), let minute = Int(clock[1]), (0...23).contains(hour), (0...59).contains(minute),
            clock[1].count == 2
        {
            let today = calendar.date(bySettingHour: hour, minute: minute, second: 0, of: now) ?? now
            return today > now ? today : calendar.date(byAdding: .day, value: 1, to: today) ?? today
        }
        if text.contains("T"), let moment = try? SearchDate.parse(text, now: now), !moment.isDay { return moment.start }
        throw ParleyError(.usage, "'\(text)' is not a time for a reminder (10m, 1h30m, 2d, 14:30, or 2026-12-01T09:00)")
    }

    /// `14:30`, or `2026-12-01 14:30` for another day (local time).
    static func reminderClock(_ date: Date) -> String {
        guard !Calendar.current.isDate(date, inSameDayAs: Date()) else { return Format.time(date) }
        let day = Calendar.current.dateComponents([.year, .month, .day], from: date)
        let (year, month, dayOfMonth) = (day.year ?? 0, day.month ?? 0, day.day ?? 0)
        return "\(year)-\(month < 10 ? "0" : "")\(month)-\(dayOfMonth < 10 ? "0" : "")\(dayOfMonth) " + Format.time(date)
    }
}
