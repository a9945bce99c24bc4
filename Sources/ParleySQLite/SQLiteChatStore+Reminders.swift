public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// Reminders users set, until they come due and are told.
extension SQLiteChatStore {
    static let reminderColumns = "id, text, due_at, created_at, chat_id, place, fired_at"

    static func reminder(_ row: Row) -> Reminder {
        Reminder(
            id: row[0], text: row[1], dueAt: Rows.date(row[2] as Int64), createdAt: Rows.date(row[3] as Int64),
            chatID: (row[4] as Int64?).map { ChatID($0) }, place: row[5], firedAt: Rows.date(row[6] as Int64?))
    }

    public func createReminder(user: UserID, chat: ChatID?, place: String?, text: String, due: Date, at time: Date) async throws
        -> Reminder
    {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO reminder (user_id, chat_id, place, text, due_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [user.rawValue, chat?.rawValue, place, text, due.storedMilliseconds, time.storedMilliseconds])
            let id = db.lastInsertedRowID
            guard let row = try Row.fetchOne(db, sql: "SELECT \(Self.reminderColumns) FROM reminder WHERE id = ?", arguments: [id]) else {
                throw ParleyError(.internalError, "a reminder just made is not there")
            }
            return Self.reminder(row)
        }
    }

    public func pendingReminders(of user: UserID) async throws -> [Reminder] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \(Self.reminderColumns) FROM reminder WHERE user_id = ? AND fired_at IS NULL ORDER BY due_at, id",
                arguments: [user.rawValue]
            ).map(Self.reminder)
        }
    }

    public func deleteReminder(_ id: Int64, of user: UserID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM reminder WHERE id = ? AND user_id = ? AND fired_at IS NULL", arguments: [id, user.rawValue])
            return db.changesCount > 0
        }
    }

    public func nextReminderDue() async throws -> Date? {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT min(due_at) FROM reminder WHERE fired_at IS NULL").map(Rows.date)
        }
    }

    public func fireReminders(dueBy now: Date, limit: Int) async throws -> [(user: UserID, reminder: Reminder)] {
        try await pool.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.reminderColumns), user_id FROM reminder WHERE fired_at IS NULL AND due_at <= ?
                    ORDER BY due_at, id LIMIT ?
                    """, arguments: [now.storedMilliseconds, limit])
            var fired: [(user: UserID, reminder: Reminder)] = []
            for row in rows {
                var reminder = Self.reminder(row)
                reminder.firedAt = now
                try db.execute(sql: "UPDATE reminder SET fired_at = ? WHERE id = ?", arguments: [now.storedMilliseconds, reminder.id])
                fired.append((UserID(row[7] as Int64), reminder))
            }
            return fired
        }
    }

    public func remindersDelivered(_ ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        try await pool.write { db in
            for id in ids { try db.execute(sql: "UPDATE reminder SET delivered = 1 WHERE id = ?", arguments: [id]) }
        }
    }

    public func takeUndeliveredReminders(of user: UserID) async throws -> [Reminder] {
        try await pool.write { db in
            let reminders = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.reminderColumns) FROM reminder
                    WHERE user_id = ? AND delivered = 0 AND fired_at IS NOT NULL ORDER BY due_at, id LIMIT 100
                    """, arguments: [user.rawValue]
            ).map(Self.reminder)
            for reminder in reminders { try db.execute(sql: "UPDATE reminder SET delivered = 1 WHERE id = ?", arguments: [reminder.id]) }
            return reminders
        }
    }
}
