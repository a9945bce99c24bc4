import Foundation
import ParleyCore
import ParleyLive
import ParleyStore
import Synchronization

/// Wakes the reminder sweep early, when a reminder is set that may be sooner than the
/// one it waits for.
final class ReminderAlarm: Sendable {
    private struct State {
        var sleeper: Task<Void, Never>?
        var rung = false
    }

    private let state = Mutex(State())

    func wake() {
        state.withLock { state in
            state.rung = true
            state.sleeper?.cancel()
        }
    }

    /// Sleeps up to `duration`, or less if woken (now or meanwhile) or cancelled (a
    /// server stopping must not wait for the sweep's next look).
    func sleep(for duration: Duration) async {
        let task = Task<Void, Never> { _ = try? await Task.sleep(for: duration) }
        let rung = state.withLock { state in
            defer { state.rung = false }
            state.sleeper = task
            return state.rung
        }
        if rung { task.cancel() }
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        state.withLock { $0.sleeper = nil }
    }
}

extension ChatEngine {
    /// How long the sweep waits at most between looks (a reminder set on another node
    /// does not wake this one).
    static let reminderLook: Duration = .seconds(15)

    /// Tells reminders as they come due, until cancelled: run by a server on every node
    /// (each reminder fires once), and by the shell on the embedded database.
    public func runReminders() async {
        while !Task.isCancelled {
            _ = await fireDueReminders()
            var wait = Self.reminderLook
            if let next = try? await store.nextReminderDue() {
                let left = next.timeIntervalSince(now)
                wait = left <= 0 ? .zero : min(wait, .milliseconds(Int64(min(left, 3600) * 1000) + 5))
            }
            if wait > .zero { await reminderAlarm.sleep(for: wait) } else { await Task.yield() }
        }
    }

    /// Fires the reminders due now: each is told to its user's connected clients, or
    /// kept for their next connection if none is. Returns how many fired.
    @discardableResult
    public func fireDueReminders() async -> Int {
        guard let due = try? await store.fireReminders(dueBy: now, limit: 100), !due.isEmpty else { return 0 }
        var told: [Int64] = []
        for (user, reminder) in due {
            guard await !online(among: [user]).isEmpty else { continue }
            await bus.publish(.reminder(reminder), to: [user], except: nil)
            told.append(reminder.id)
        }
        try? await store.remindersDelivered(told)
        return due.count
    }

    /// Tells a user who just connected the reminders that came due while none of their
    /// clients was.
    func deliverMissedReminders(to user: UserID) async {
        guard let missed = try? await store.takeUndeliveredReminders(of: user) else { return }
        for reminder in missed { await bus.publish(.reminder(reminder), to: [user], except: nil) }
    }
}
