import Synchronization

/// One subscriber's events on their way out of an event bus (`InProcessEventBus`,
/// `PostgresEventBus`). The bus puts events in under its own lock, in position order,
/// and that is all it does there; whoever then finds the queue idle hands them to the
/// subscriber (which builds IRC lines and WebSocket frames), off the bus's lock, one at a
/// time and in order. So one session's delivery never holds up another's publication,
/// and a session still sees its events in position order.
package final class SubscriberQueue: Sendable {
    private typealias Item = (event: PositionedEvent, trace: StageTrace?)

    private struct Waiting {
        var events: [Item] = []
        /// A delivered batch's storage, kept for the next so a steady stream allocates none.
        var spare: [Item] = []
        /// Someone is handing events over: the others leave what they put in to them.
        var delivering = false
        var closed = false
    }

    private let deliver: @Sendable (PositionedEvent) -> Void
    private let waiting = Mutex(Waiting())

    package init(_ deliver: @escaping @Sendable (PositionedEvent) -> Void) {
        self.deliver = deliver
    }

    /// Queues `event`; `trace` is the send it came from, when traced, for its delivery.
    /// True when the caller must have it delivered (`deliverWaiting`): the queue was
    /// idle and empty. Otherwise whoever put the earlier events in, or is delivering
    /// them, delivers this one too.
    package func put(_ event: PositionedEvent, trace: StageTrace?) -> Bool {
        waiting.withLock { waiting in
            guard !waiting.closed else { return false }
            let idle = waiting.events.isEmpty && !waiting.delivering
            waiting.events.append((event, trace))
            return idle
        }
    }

    /// Nothing more is delivered, not even what waits.
    package func close() {
        waiting.withLock { waiting in
            waiting.closed = true
            waiting.events = []
        }
    }

    /// Hands over what waits, and what comes meanwhile, unless another caller is at it
    /// already (it will hand over what this caller put in too).
    package func deliverWaiting() {
        var batch = waiting.withLock { waiting -> [Item] in
            guard !waiting.delivering, !waiting.closed, !waiting.events.isEmpty else { return [] }
            waiting.delivering = true
            return Self.take(&waiting)
        }
        while !batch.isEmpty {
            for (event, trace) in batch {
                // Under the trace of its own send, whichever send's publication lets it out.
                if trace !== StageTrace.current {
                    StageTrace.$current.withValue(trace) { deliver(event) }
                } else {
                    deliver(event)
                }
            }
            batch.removeAll(keepingCapacity: true)
            batch = waiting.withLock { [batch] waiting in
                waiting.spare = batch
                guard !waiting.closed, !waiting.events.isEmpty else {
                    waiting.delivering = false
                    return []
                }
                return Self.take(&waiting)
            }
        }
    }

    /// The events waiting, leaving the spare storage in their place.
    private static func take(_ waiting: inout Waiting) -> [Item] {
        var taken = waiting.spare
        swap(&taken, &waiting.events)
        waiting.spare = []
        return taken
    }
}

/// The queues that must be delivered once the bus's lock is let go.
package struct TouchedQueues {
    private var queues: [SubscriberQueue] = []

    package init(capacity: Int = 0) {
        queues.reserveCapacity(capacity)
    }

    /// Puts `event` in `queue`, noting the queue when it is this caller's to deliver.
    package mutating func put(_ event: PositionedEvent, trace: StageTrace?, in queue: SubscriberQueue) {
        if queue.put(event, trace: trace) { queues.append(queue) }
    }

    package func deliver() {
        for queue in queues { queue.deliverWaiting() }
    }
}
