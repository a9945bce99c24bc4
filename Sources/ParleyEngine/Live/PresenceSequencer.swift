import ParleyCore
import Synchronization

/// Runs one user's presence work (going online, going offline) in the order their
/// sessions came and went, each after the one before it: a short session's "offline"
/// cannot overtake its "online" on the way to the bus. Different users run side by side.
final class PresenceSequencer: Sendable {
    private struct Tail {
        let number: UInt64
        let task: Task<Void, Never>
    }

    private let tails = Mutex<(next: UInt64, byUser: [UserID: Tail])>((0, [:]))

    /// Queues `work` for `user` behind what is queued already, and returns its task.
    @discardableResult
    func run(_ user: UserID, _ work: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        tails.withLock { tails in
            tails.next &+= 1
            let number = tails.next
            let previous = tails.byUser[user]?.task
            let task = Task { [self] in
                await previous?.value
                await work()
                forget(user, number)
            }
            tails.byUser[user] = Tail(number: number, task: task)
            return task
        }
    }

    private func forget(_ user: UserID, _ number: UInt64) {
        tails.withLock { tails in
            if tails.byUser[user]?.number == number { tails.byUser[user] = nil }
        }
    }
}
