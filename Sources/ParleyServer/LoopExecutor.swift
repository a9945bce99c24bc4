import NIOCore
import NIOPosix
import ParleyStore
import Synchronization

/// An event loop as the executor a socket's request tasks prefer: a request is answered
/// on the thread that read it, its reply and its events to sockets of the same loop are
/// queued there without waking another thread, and a commit resumes it with one wake of
/// that loop instead of a thread of Swift's pool and then the loop. Whatever blocks
/// (SQLite, bcrypt, files) runs on queues of its own, as it does for any task.
final class LoopExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}

/// Event loop groups by their number of threads, made once and kept for the process
/// (as NIO's own singleton group is): every server of a process with the same count
/// shares one.
enum LoopGroups {
    /// The groups by their number of threads, and every loop of them.
    private static let state = Mutex((groups: [Int: MultiThreadedEventLoopGroup](), loops: Set<ObjectIdentifier>()))

    static func shared(threads: Int) -> MultiThreadedEventLoopGroup {
        let range = ParleyServer.Configuration.eventLoopRange
        let threads = min(max(threads, range.lowerBound), range.upperBound)
        return state.withLock { state in
            if let group = state.groups[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            state.groups[threads] = group
            for loop in group.makeIterator() { state.loops.insert(ObjectIdentifier(loop)) }
            BatchStart.install(deferOnOurLoop)
            return group
        }
    }

    /// Runs a commit's beginning after what the calling loop already has queued when
    /// called on one of these loops (which live as long as the process, so the work
    /// always runs): the other requests read in the same turn of the loop join it.
    private static func deferOnOurLoop(_ work: @escaping @Sendable () -> Void) {
        guard let loop = MultiThreadedEventLoopGroup.currentEventLoop,
            state.withLock({ $0.loops.contains(ObjectIdentifier(loop)) })
        else { return work() }
        loop.execute(work)
    }
}
