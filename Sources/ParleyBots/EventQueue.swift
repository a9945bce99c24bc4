import Synchronization

/// A bounded queue of events for one bot. Pushing never waits: when the bot is behind
/// and the queue is full, the oldest event goes and is counted, and the next `next()`
/// reports how many went.
final class EventQueue: Sendable {
    private struct State {
        var items: [BotEvent] = []
        var head = 0
        var dropped = 0
        var waiter: CheckedContinuation<Void, Never>?
        var closed = false
        var count: Int { items.count - head }
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    func push(_ event: BotEvent) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard !state.closed else { return nil }
            if state.count >= capacity {
                state.head += 1
                state.dropped += 1
            }
            state.items.append(event)
            if state.head > 1024 && state.head * 2 > state.items.count {
                state.items.removeFirst(state.head)
                state.head = 0
            }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The next event and how many were dropped before it; nil once closed.
    func next() async -> (event: BotEvent, dropped: Int)? {
        while true {
            enum Step { case item(BotEvent, Int), wait, closed }
            let step: Step = state.withLock { state in
                if state.count > 0 {
                    let item = state.items[state.head]
                    state.head += 1
                    if state.head == state.items.count {
                        state.items.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    defer { state.dropped = 0 }
                    return .item(item, state.dropped)
                }
                return state.closed ? .closed : .wait
            }
            switch step {
            case .item(let event, let dropped): return (event, dropped)
            case .closed: return nil
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let resumeNow = state.withLock { state in
                            if state.count > 0 || state.closed || Task.isCancelled { return true }
                            state.waiter = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    let waiter = state.withLock { state in
                        defer { state.waiter = nil }
                        return state.waiter
                    }
                    waiter?.resume()
                }
                if Task.isCancelled { return nil }
            }
        }
    }

    func close() {
        let waiter = state.withLock { state in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    var count: Int { state.withLock { $0.count } }

    /// Events dropped that `next()` has not reported yet.
    var unreportedDrops: Int { state.withLock { $0.dropped } }
}
