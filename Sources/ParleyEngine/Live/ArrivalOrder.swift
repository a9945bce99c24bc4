import Synchronization

/// The order lines and requests reach this node in, across every connection: each takes
/// a ticket as it arrives and hands it back once handled (its events published to this
/// node's connections). `earlierFinished` waits until every line that arrived before a
/// ticket has been handled, so an IRC `PING` answered after it means everything sent
/// before it, by anyone, has been delivered here — without a commit or a lock held
/// across a line: two short critical sections per line, amortized constant time.
public final class ArrivalOrder: Sendable {
    private struct State {
        /// The last ticket handed out.
        var last: UInt64 = 0
        /// Every ticket below this one has finished.
        var low: UInt64 = 1
        /// Finished tickets above `low`, waiting for the ones before them.
        var finishedEarly: Set<UInt64> = []
        var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    /// Off until something waits on the order (the IRC gateway): until then `arrive`
    /// hands out 0, which `finish` ignores, and a request costs nothing here.
    private let enabled = Atomic(false)

    public init() {}

    /// Starts numbering lines (the IRC gateway calls it as it starts).
    public func enable() {
        enabled.store(true, ordering: .sequentiallyConsistent)
    }

    /// A ticket for a line that just arrived.
    public func arrive() -> UInt64 {
        guard enabled.load(ordering: .relaxed) else { return 0 }
        return state.withLock { state in
            state.last &+= 1
            return state.last
        }
    }

    /// The line of `ticket` has been handled.
    public func finish(_ ticket: UInt64) {
        guard ticket != 0 else { return }
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard ticket == state.low else {
                if ticket > state.low { state.finishedEarly.insert(ticket) }
                return []
            }
            state.low += 1
            while state.finishedEarly.remove(state.low) != nil { state.low += 1 }
            guard !state.waiters.isEmpty else { return [] }
            let low = state.low
            let ready = state.waiters.filter { $0.ticket <= low }.map(\.continuation)
            state.waiters.removeAll { $0.ticket <= low }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once every line that arrived before `ticket` has been handled.
    public func earlierFinished(_ ticket: UInt64) async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                guard state.low < ticket else { return true }
                state.waiters.append((ticket, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }
}
