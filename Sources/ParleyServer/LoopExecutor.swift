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
    private let backlog: LoopBacklog

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        backlog = LoopGroups.backlog(of: eventLoop)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let backlog = backlog
        backlog.jobs.add(1, ordering: .relaxed)
        eventLoop.execute {
            backlog.jobs.subtract(1, ordering: .relaxed)
            job.runSynchronously(on: executor)
        }
    }
}

/// How many jobs of Swift tasks (requests and their resumptions) wait on one event loop,
/// across every server's executor on it.
final class LoopBacklog: Sendable {
    let jobs = Atomic<Int>(0)
}

/// Event loop groups by their number of threads, made once and kept for the process
/// (as NIO's own singleton group is): every server of a process with the same count
/// shares one.
enum LoopGroups {
    /// The groups by their number of threads, and the backlog of every loop of them.
    private static let state = Mutex((groups: [Int: MultiThreadedEventLoopGroup](), backlogs: [ObjectIdentifier: LoopBacklog]()))

    /// A commit begins after the jobs queued on its loop only while there are at most
    /// this many: the requests read in the same turn are among them. Behind a longer
    /// queue (a commit's worth of senders resumed at once, with 100 senders in 50 groups)
    /// the writer would sit idle while the loop works through it, and throughput fell by
    /// a tenth; there the writer is busy enough to gather sends by itself.
    static let joinBehind = 8

    static func shared(threads: Int) -> MultiThreadedEventLoopGroup {
        let range = ParleyServer.Configuration.eventLoopRange
        let threads = min(max(threads, range.lowerBound), range.upperBound)
        return state.withLock { state in
            if let group = state.groups[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            state.groups[threads] = group
            for loop in group.makeIterator() { state.backlogs[ObjectIdentifier(loop)] = LoopBacklog() }
            return group
        }
    }

    /// The backlog of `loop`: shared by every executor on one of these loops, a private
    /// one for any other loop.
    static func backlog(of loop: any EventLoop) -> LoopBacklog {
        state.withLock { $0.backlogs[ObjectIdentifier(loop)] } ?? LoopBacklog()
    }

    /// Where a server's stores begin a commit (`ParleyServer.batchStart`).
    static let batchStart = BatchStart(deferOnOurLoop)

    /// Runs a commit's beginning after what the calling loop already has queued when
    /// called on one of these loops with a short queue (they live as long as the
    /// process, so the work always runs): the other requests read in the same turn of
    /// the loop join it. Anywhere else, or behind a long queue, it begins at once.
    private static func deferOnOurLoop(_ work: @escaping @Sendable () -> Void) {
        guard let loop = MultiThreadedEventLoopGroup.currentEventLoop,
            let backlog = state.withLock({ $0.backlogs[ObjectIdentifier(loop)] }),
            backlog.jobs.load(ordering: .relaxed) <= joinBehind
        else { return work() }
        loop.execute(work)
    }
}
