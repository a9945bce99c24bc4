import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Background work that many callers ask for and that runs once for all of them: the
/// first request schedules a run after a delay, later ones until it starts join it. The
/// search index and the checkpoints follow commits this way.
///
/// It runs on a thread of its own, started at the first request. On Dispatch's shared
/// threads, beside the message writer's queue, the two had cost more than their own work:
/// in the closed loop Dispatch's threads used about a third more CPU a message than the
/// writer's and these two threads use now, and the server did a tenth to a quarter fewer
/// sends a second (docs/performance.md's history in git, "28 November, evening").
///
/// The thread's CPU priority is lowered to `nice`, so that on a busy machine the event
/// loops and the message writer do not wait behind it. Its own thread for that too: a
/// thread's priority, once lowered, cannot be raised again without privilege, and a
/// shared pool's thread would keep it for whatever else it ran later.
final class CoalescedWork: Sendable {
    private let runner: Runner

    /// - Parameters:
    ///   - label: the thread's name in `top -H` and /proc (its first 15 bytes).
    ///   - nice: the thread's CPU priority, 0 (as other threads) to 19 (only what the
    ///     others leave).
    init(label: String, nice: Int32, work: @escaping @Sendable () -> Void) {
        runner = Runner(label: label, nice: nice, work: work)
    }

    /// A store dropped without closing still ends the thread.
    deinit {
        runner.close(waiting: false)
    }

    /// Runs the work after `delay`, unless a run is already waiting to start.
    func schedule(after delay: DispatchTimeInterval) {
        runner.schedule(after: delay)
    }

    /// Waits for a run in progress; no run starts after this returns, so what the work
    /// uses can be closed.
    func close() {
        runner.close(waiting: true)
    }
}

/// What the thread shares with its owner: the owner's end does not keep the thread going.
private final class Runner: Sendable {
    private struct State {
        /// When the next run starts; nil when none is asked for.
        var due: DispatchTime?
        var started = false
        var closed = false
    }

    private let label: String
    private let nice: Int32
    private let work: @Sendable () -> Void
    private let state = Mutex(State())
    /// Signalled when a run is asked for, and when the work closes.
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled once the thread has stopped.
    private let stopped = DispatchSemaphore(value: 0)

    init(label: String, nice: Int32, work: @escaping @Sendable () -> Void) {
        self.label = label
        self.nice = nice
        self.work = work
    }

    func schedule(after delay: DispatchTimeInterval) {
        let (asked, start) = state.withLock { state -> (Bool, Bool) in
            guard !state.closed, state.due == nil else { return (false, false) }
            state.due = .now() + delay
            defer { state.started = true }
            return (true, !state.started)
        }
        guard asked else { return }
        if start {
            Thread { [self] in run() }.start()
        }
        wake.signal()
    }

    func close(waiting: Bool) {
        let started = state.withLock { state in
            defer { state.closed = true }
            return state.started && !state.closed
        }
        guard started else { return }
        wake.signal()
        if waiting { stopped.wait() }
    }

    private func run() {
        #if canImport(Glibc)
            // Linux keeps a priority per thread: `0` is the calling one.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
        #endif
        Thread.current.name = String(decoding: label.utf8.prefix(15), as: UTF8.self)
        defer { stopped.signal() }
        while true {
            wake.wait()
            // Asked for (or closed): wait out the delay. Only closing signals meanwhile, as
            // a run asked for signals only while none is due.
            if let due = state.withLock({ $0.closed ? nil : $0.due }) { _ = wake.wait(timeout: due) }
            let go = state.withLock { state -> Bool in
                guard !state.closed else { return false }
                state.due = nil
                return true
            }
            guard go else { return }
            work()
        }
    }
}
