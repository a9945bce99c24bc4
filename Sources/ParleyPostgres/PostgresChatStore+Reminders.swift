public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// Reminders users set, until they come due and are told.
extension PostgresChatStore {
    static let reminderColumns = "id, text, due_at, created_at, chat_id, place, fired_at"

    static func reminder(_ cells: inout Cells) throws -> Reminder {
        Reminder(
            id: try cells.next(), text: try cells.next(), dueAt: try cells.date(), createdAt: try cells.date(),
            chatID: try cells.next(Int64?.self).map { ChatID($0) }, place: try cells.next(), firedAt: try cells.optionalDate())
    }

    static func reminder(_ row: PostgresRow) throws -> Reminder {
        var cells = Cells(row)
        return try reminder(&cells)
    }

    public func createReminder(user: UserID, chat: ChatID?, place: String?, text: String, due: Date, at time: Date) async throws
        -> Reminder
    {
        let made = try await rows(
            """
            INSERT INTO reminder (user_id, chat_id, place, text, due_at, created_at)
            VALUES (\(user.rawValue), \(chat?.rawValue), \(place), \(text), \(due.storedMilliseconds), \(time.storedMilliseconds))
            RETURNING \(unescaped: Self.reminderColumns)
            """)
        guard let row = made.first else { throw ParleyError(.internalError, "a reminder insert returned nothing") }
        return try Self.reminder(row)
    }

    public func pendingReminders(of user: UserID) async throws -> [Reminder] {
        try await rows(
            """
            SELECT \(unescaped: Self.reminderColumns) FROM reminder WHERE user_id = \(user.rawValue) AND fired_at IS NULL
            ORDER BY due_at, id
            """
        ).map(Self.reminder)
    }

    public func deleteReminder(_ id: Int64, of user: UserID) async throws -> Bool {
        !(try await rows("DELETE FROM reminder WHERE id = \(id) AND user_id = \(user.rawValue) AND fired_at IS NULL RETURNING id")).isEmpty
    }

    public func nextReminderDue() async throws -> Date? {
        guard let row = try await rows("SELECT min(due_at) FROM reminder WHERE fired_at IS NULL").first else { return nil }
        var cells = Cells(row)
        return try cells.optionalDate()
    }

    /// One statement: a row locked by another node's sweep is skipped, so each fires once.
    public func fireReminders(dueBy now: Date, limit: Int) async throws -> [(user: UserID, reminder: Reminder)] {
        try await rows(
            """
            UPDATE reminder SET fired_at = \(now.storedMilliseconds)
            WHERE id IN (
                SELECT id FROM reminder WHERE fired_at IS NULL AND due_at <= \(now.storedMilliseconds)
                ORDER BY due_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: Self.reminderColumns), user_id
            """
        ).map { row in
            var cells = Cells(row)
            let reminder = try Self.reminder(&cells)
            return (UserID(try cells.next(Int64.self)), reminder)
        }.sorted { ($0.reminder.dueAt, $0.reminder.id) < ($1.reminder.dueAt, $1.reminder.id) }
    }

    public func remindersDelivered(_ ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        _ = try await rows("UPDATE reminder SET delivered = true WHERE id = ANY(\(ids))")
    }

    public func takeUndeliveredReminders(of user: UserID) async throws -> [Reminder] {
        try await rows(
            """
            UPDATE reminder SET delivered = true
            WHERE id IN (
                SELECT id FROM reminder WHERE user_id = \(user.rawValue) AND delivered = false AND fired_at IS NOT NULL
                ORDER BY due_at, id LIMIT 100 FOR UPDATE SKIP LOCKED)
            RETURNING \(unescaped: Self.reminderColumns)
            """
        ).map(Self.reminder).sorted { ($0.dueAt, $0.id) < ($1.dueAt, $1.id) }
    }
}
