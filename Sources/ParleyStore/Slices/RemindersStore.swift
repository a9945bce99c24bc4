public import Foundation
public import ParleyCore

/// Reminders, fired once each even with several nodes.
public protocol RemindersStore: Sendable {
    func createReminder(user: UserID, chat: ChatID?, place: String?, text: String, due: Date, at time: Date) async throws -> Reminder

    /// A user's reminders not yet come due, soonest first.
    func pendingReminders(of user: UserID) async throws -> [Reminder]

    /// Deletes a pending reminder of `user`; false when there is none with that id.
    func deleteReminder(_ id: Int64, of user: UserID) async throws -> Bool

    /// When the soonest pending reminder comes due.
    func nextReminderDue() async throws -> Date?

    /// Marks up to `limit` reminders due by `now` as fired, each once even with several
    /// nodes, and returns them with their users.
    func fireReminders(dueBy now: Date, limit: Int) async throws -> [(user: UserID, reminder: Reminder)]

    /// Marks fired reminders as told to their users.
    func remindersDelivered(_ ids: [Int64]) async throws

    /// Takes a user's fired reminders not yet told (marking them told), oldest first.
    func takeUndeliveredReminders(of user: UserID) async throws -> [Reminder]
}
