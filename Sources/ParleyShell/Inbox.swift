import Foundation
import ParleyCore
import Synchronization

/// Messages received since the last `/wait` looked, so `/wait` also finds a reply that
/// arrived before it started.
public final class Inbox: Sendable {
    private struct State {
        var messages: [MessageEvent] = []
        var waiters: [UUID: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    func receive(_ event: ChatEvent) {
        guard case .message(let message) = event else { return }
        let waiters = state.withLock { state in
            state.messages.append(message)
            if state.messages.count > 10_000 { state.messages.removeFirst(state.messages.count - 10_000) }
            return Array(state.waiters.values)
        }
        for wake in waiters { wake() }
    }

    /// Removes and returns the first message matching, dropping the ones before it.
    private func take(where match: (MessageEvent) -> Bool) -> MessageEvent? {
        state.withLock { state in
            guard let index = state.messages.firstIndex(where: match) else { return nil }
            let found = state.messages[index]
            state.messages.removeFirst(index + 1)
            return found
        }
    }

    /// Waits for a message matching, up to `timeout`.
    func wait(timeout: Duration, where match: @escaping @Sendable (MessageEvent) -> Bool) async -> MessageEvent? {
        let deadline = ContinuousClock.now + timeout
        let signal = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        state.withLock { $0.waiters[id] = { signal.continuation.yield() } }
        defer { _ = state.withLock { $0.waiters.removeValue(forKey: id) } }
        let timer = Task {
            try? await Task.sleep(until: deadline)
            signal.continuation.yield()
        }
        defer { timer.cancel() }
        var iterator = signal.stream.makeAsyncIterator()
        while true {
            if let found = take(where: match) { return found }
            if ContinuousClock.now >= deadline { return nil }
            _ = await iterator.next()
        }
    }
}
