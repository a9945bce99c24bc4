import NIOCore
import NIOPosix
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
    private static let groups = Mutex([Int: MultiThreadedEventLoopGroup]())

    static func shared(threads: Int) -> MultiThreadedEventLoopGroup {
        let range = ParleyServer.Configuration.eventLoopRange
        let threads = min(max(threads, range.lowerBound), range.upperBound)
        return groups.withLock { groups in
            if let group = groups[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            groups[threads] = group
            return group
        }
    }
}
