public import Foundation

/// Reminders.
public protocol RemindersService: AnyObject, Sendable {
    /// Sets a reminder for `due` (from now to 366 days ahead), in `chat` if given: told to
    /// this user alone when it comes due, or when one of their clients next connects.
    func remind(_ text: String, at due: Date, in chat: ChatID?) async throws -> Reminder

    /// The user's pending reminders, soonest first.
    func reminders() async throws -> [Reminder]
    func cancelReminder(_ id: Int64) async throws
}
