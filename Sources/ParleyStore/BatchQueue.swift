import Synchronization

/// Group commit's queue: what callers submit while a batch is being written waits and
/// goes together into the next one, and each caller gets its own result once that batch
/// is done. With one caller at a time it is one batch per item; with many it amortises
/// whatever a batch costs (a commit, a round trip, a NOTIFY).
package final class BatchQueue<Item: Sendable, Output: Sendable>: Sendable {
    private struct Pending: Sendable {
        var item: Item
        var continuation: CheckedContinuation<Output, any Error>
    }

    private let state = Mutex<(pending: [Pending], writing: Bool)>(([], false))
    /// Writes a batch; returns each item's result, in order (or throws for them all).
    private let write: @Sendable ([Item]) async throws -> [Result<Output, any Error>]

    package init(write: @escaping @Sendable ([Item]) async throws -> [Result<Output, any Error>]) {
        self.write = write
    }

    /// Queues `item` and returns its result once its batch is written.
    package func submit(_ item: Item) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let start = state.withLock { state in
                state.pending.append(Pending(item: item, continuation: continuation))
                if state.writing { return false }
                state.writing = true
                return true
            }
            if start { Task { await self.drain() } }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state in
                let batch = state.pending
                state.pending = []
                if batch.isEmpty { state.writing = false }
                return batch
            }
            if batch.isEmpty { return }
            do {
                let results = try await write(batch.map(\.item))
                for (pending, result) in zip(batch, results) { pending.continuation.resume(with: result) }
            } catch {
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
        }
    }
}

/// Hears how long each committed batch of messages took and how many it held (for a
/// server's metrics); one listener at a time.
package final class CommitObserver: Sendable {
    private let listener = Mutex<Callback<(Duration, Int)>?>(nil)

    package init() {}

    package func set(_ listener: @escaping @Sendable (Duration, Int) -> Void) {
        let callback = Callback(listener)
        self.listener.withLock { $0 = callback }
    }

    package func committed(_ messages: Int, since started: ContinuousClock.Instant) {
        listener.withLock { $0 }?.call((ContinuousClock.now - started, messages))
    }
}

/// A closure kept where a `Mutex` can hold it. A closure stored in a `Mutex` of
/// function type is kept at the generic storage's abstraction: each `withLock { $0 }`
/// wrapped it in two more reabstraction thunks, written back with it, so a listener read
/// on every commit grew by two thunks a commit and every call walked all of them (46% of
/// a busy server's CPU after a minute). A class reference is read and written back as
/// it is.
package final class Callback<Argument>: Sendable {
    package let call: @Sendable (Argument) -> Void

    package init(_ call: @escaping @Sendable (Argument) -> Void) {
        self.call = call
    }
}
