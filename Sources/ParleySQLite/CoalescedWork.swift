import Foundation
import ParleyStore
import Synchronization

/// Background work that many callers ask for and that runs once for all of them: the
/// first request schedules a run on the queue after a delay, later ones until it starts
/// join it. The search index and the checkpoints follow commits this way.
final class CoalescedWork: Sendable {
    private struct State {
        var scheduled = false
        var closed = false
    }

    private let queue: DispatchQueue
    private let state = Mutex(State())
    private let work: @Sendable () -> Void

    init(label: String, work: @escaping @Sendable () -> Void) {
        queue = DispatchQueue(label: label, qos: .utility)
        self.work = work
    }

    /// Runs the work after `delay`, unless a run is already waiting to start.
    func schedule(after delay: DispatchTimeInterval) {
        let alreadyScheduled = state.withLock { state in
            defer { state.scheduled = true }
            return state.scheduled
        }
        if alreadyScheduled { return }
        queue.asyncAfter(deadline: .now() + delay) {
            let closed = self.state.withLock { state in
                state.scheduled = false
                return state.closed
            }
            if !closed { self.work() }
        }
    }

    /// Waits for a run in progress; no run starts after this returns, so what the work
    /// uses can be closed.
    func close() {
        queue.sync { state.withLock { $0.closed = true } }
    }
}
