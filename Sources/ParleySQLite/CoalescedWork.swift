import Foundation
import ParleyStore
import Synchronization

/// Background work that many callers ask for and that runs once for all of them: the
/// first request schedules a run on the queue after a delay, later ones until it starts
/// join it. The search index and the checkpoints follow commits this way.
final class CoalescedWork: Sendable {
    let queue: DispatchQueue
    private let scheduled = Mutex(false)
    private let work: @Sendable () -> Void

    init(label: String, work: @escaping @Sendable () -> Void) {
        queue = DispatchQueue(label: label, qos: .utility)
        self.work = work
    }

    /// Runs the work after `delay`, unless a run is already waiting to start.
    func schedule(after delay: DispatchTimeInterval) {
        let alreadyScheduled = scheduled.withLock { scheduled in
            defer { scheduled = true }
            return scheduled
        }
        if alreadyScheduled { return }
        queue.asyncAfter(deadline: .now() + delay) {
            self.scheduled.withLock { $0 = false }
            self.work()
        }
    }
}
