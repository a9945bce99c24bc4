public import Foundation
public import ParleyCore
import ParleyStore

/// Reminders: a user sets them, lists the pending ones and cancels them; the engine
/// tells them when they come due (ChatEngine+Reminders.swift).
extension EngineSession {
    public func remind(_ text: String, at due: Date, in chat: ChatID?) async throws -> Reminder {
        let user = try requireUser()
        let text = try Limits.messageText(text)
        guard text.count <= Reminder.maxTextLength else {
            throw ParleyError(.textTooLong, "a reminder is at most \(Reminder.maxTextLength) characters")
        }
        let now = engine.now
        let ahead = due.timeIntervalSince(now)
        guard ahead.isFinite, ahead > -60, ahead <= Reminder.maxAhead else {
            throw ParleyError(.invalidArgument, "a reminder is for a time from now to 366 days ahead")
        }
        var place: String?
        if let chat {
            let entry = try await requireMember(chat).entry
            switch entry.chat.kind {
            case .group: place = Self.name(of: entry.chat)
            case .direct:
                let peer = entry.members.first { $0 != user.id }
                place = try await peer.asyncMap { try await store.user(id: $0) }?.map { "@" + $0.handle }
            }
        }
        guard try await store.pendingReminders(of: user.id).count < Reminder.maxPending else {
            throw ParleyError(.forbidden, "you have \(Reminder.maxPending) reminders pending; cancel one first")
        }
        let reminder = try await store.createReminder(user: user.id, chat: chat, place: place, text: text, due: max(due, now), at: now)
        engine.reminderAlarm.wake()
        return reminder
    }

    public func reminders() async throws -> [Reminder] {
        try await store.pendingReminders(of: try requireUser().id)
    }

    /// Tells the user the reminders that came due while none of their clients was
    /// connected. A sign-in does it at once, except on IRC, whose gateway asks once the
    /// client is registered (it would drop a line before).
    public func tellMissedReminders() async {
        guard let user = try? requireUser() else { return }
        await engine.deliverMissedReminders(to: user.id)
    }

    func tellMissedRemindersOnSignIn() async {
        if client != "irc" { await tellMissedReminders() }
    }

    public func cancelReminder(_ id: Int64) async throws {
        guard try await store.deleteReminder(id, of: try requireUser().id) else {
            throw ParleyError(.unknownReminder, "you have no pending reminder \(id) (/reminders lists them)")
        }
    }
}

extension Optional {
    fileprivate func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
