import Synchronization

/// One subscriber's events on their way out of an event bus (`InProcessEventBus`,
/// `PostgresEventBus`). The bus puts events
/// in under its own lock, in position order, and that is all it does there; whoever then
/// finds the queue idle hands them to the subscriber (which builds IRC lines and WebSocket
/// frames), off the bus's lock, one at a time and in order. So one session's slow
/// delivery never holds up another's publication, and a session still sees its events in
/// position order.
package final class SubscriberQueue: Sendable {
    private struct Waiting {
        var events: [(event: PositionedEvent, trace: StageTrace?)] = []
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
    package func put(_ event: PositionedEvent, trace: StageTrace?) {
        waiting.withLock { waiting in
            guard !waiting.closed else { return }
            waiting.events.append((event, trace))
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
        let mine = waiting.withLock { waiting in
            guard !waiting.delivering, !waiting.events.isEmpty else { return false }
            waiting.delivering = true
            return true
        }
        guard mine else { return }
        while true {
            let batch = waiting.withLock { waiting in
                guard !waiting.closed, !waiting.events.isEmpty else {
                    waiting.delivering = false
                    return [(event: PositionedEvent, trace: StageTrace?)]()
                }
                defer { waiting.events = [] }
                return waiting.events
            }
            guard !batch.isEmpty else { return }
            for (event, trace) in batch {
                // Under the trace of its own send, whichever send's publication lets it out.
                if trace !== StageTrace.current {
                    StageTrace.$current.withValue(trace) { deliver(event) }
                } else {
                    deliver(event)
                }
            }
        }
    }
}

/// The queues events were put in under the bus's lock, each once, to be delivered after it.
package struct TouchedQueues {
    package init() {}

    private var queues: [SubscriberQueue] = []
    private var seen: Set<ObjectIdentifier> = []

    package mutating func add(_ queue: SubscriberQueue) {
        if seen.insert(ObjectIdentifier(queue)).inserted { queues.append(queue) }
    }

    package func deliver() {
        for queue in queues { queue.deliverWaiting() }
    }
}
