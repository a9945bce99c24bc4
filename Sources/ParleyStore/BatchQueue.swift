public import Dispatch
public import Synchronization

/// Group commit's queue: what callers submit while a batch is being written waits and
/// goes together into the next one, and each caller gets its own result once that batch
/// is done. With one caller at a time it is one batch per item; with many it amortises
/// whatever a batch costs (a commit, a round trip, a NOTIFY).
///
/// Inlinable, so that a driver in another module (ParleySQLite, ParleyPostgres) gets it
/// specialized for its own types: unspecialized, its generic code on every send cost
/// the server about 7% of its sends a second in the closed loop (docs/performance.md).
/// Public, not `package`: this toolchain inlines and specializes an `@inlinable`
/// `package` declaration in no other module (the drivers called the generic code, and
/// the runtime looked its metadata up on every send), where a public one it does.
public final class BatchQueue<Item: Sendable, Output: Sendable>: Sendable {
    @usableFromInline
    struct Pending: Sendable {
        @usableFromInline var item: Item
        @usableFromInline var continuation: CheckedContinuation<Output, any Error>

        @inlinable
        init(item: Item, continuation: CheckedContinuation<Output, any Error>) {
            self.item = item
            self.continuation = continuation
        }
    }

    /// How a batch is written: awaited in a task, or on a Dispatch queue of its own.
    @usableFromInline
    enum Writer: Sendable {
        case async(@Sendable ([Item]) async throws -> [Result<Output, any Error>])
        case blocking(DispatchQueue, @Sendable ([Item]) throws -> [Result<Output, any Error>])
    }

    @usableFromInline let state = Mutex<(pending: [Pending], writing: Bool)>(([], false))
    @usableFromInline let writer: Writer
    @usableFromInline let start: BatchStart
    @usableFromInline let executor: (any TaskExecutor)?

    /// Batches written by `write`, awaited in a task; returns each item's result, in
    /// order (or throws for them all).
    /// - Parameter executor: where the writing task prefers to run (the thread of the
    ///   connection it awaits, so each round trip resumes it without a hop).
    @inlinable
    public init(
        start: BatchStart = .immediately, executor: (any TaskExecutor)? = nil,
        write: @escaping @Sendable ([Item]) async throws -> [Result<Output, any Error>]
    ) {
        writer = .async(write)
        self.start = start
        self.executor = executor
    }

    /// Batches written by `write`, which blocks, one after another on `queue`. The queue
    /// takes the next batch itself and answers each caller from there: a batch costs no
    /// task and no hop through Swift's pool between the write and its callers.
    @inlinable
    public init(
        on queue: DispatchQueue, start: BatchStart = .immediately, write: @escaping @Sendable ([Item]) throws -> [Result<Output, any Error>]
    ) {
        writer = .blocking(queue, write)
        self.start = start
        executor = nil
    }

    /// Queues `item` and returns its result once its batch is written.
    @inlinable
    public func submit(_ item: Item) async throws -> Output {
        try await withCheckedThrowingContinuation { continuation in
            let first = state.withLock { state in
                state.pending.append(Pending(item: item, continuation: continuation))
                if state.writing { return false }
                state.writing = true
                return true
            }
            guard first else { return }
            let writer = writer
            let executor = executor
            let begin: @Sendable () -> Void = {
                switch writer {
                case .async(let write): Task(executorPreference: executor) { await self.drain(write) }
                case .blocking(let queue, let write): queue.async { self.drain(write) }
                }
            }
            start.begin(begin)
        }
    }

    /// The next batch, or nil (and no longer writing) when nothing waits.
    @inlinable
    func next() -> [Pending]? {
        state.withLock { state in
            let batch = state.pending
            state.pending = []
            if batch.isEmpty { state.writing = false }
            return batch.isEmpty ? nil : batch
        }
    }

    @inlinable
    static func answer(_ batch: [Pending], with results: Result<[Result<Output, any Error>], any Error>) {
        switch results {
        case .success(let results):
            for (pending, result) in zip(batch, results) { pending.continuation.resume(with: result) }
        case .failure(let error):
            for pending in batch { pending.continuation.resume(throwing: error) }
        }
    }

    @inlinable
    func drain(_ write: @Sendable ([Item]) async throws -> [Result<Output, any Error>]) async {
        while let batch = next() {
            let results: Result<[Result<Output, any Error>], any Error>
            // A closure, not `\.item`: a key path into a generic type is made at run
            // time, from its mangled name, on every call.
            do {
                results = .success(try await write(batch.map { $0.item }))
            } catch {
                results = .failure(error)
            }
            Self.answer(batch, with: results)
        }
    }

    @inlinable
    func drain(_ write: @Sendable ([Item]) throws -> [Result<Output, any Error>]) {
        while let batch = next() {
            Self.answer(batch, with: Result { try write(batch.map { $0.item }) })
        }
    }
}

/// Where a batch that nothing else is being written for begins: at once, or where the
/// store's builder says. A server whose threads each run a queue of work (event loops
/// answering several sockets' requests) gives its stores one that begins a batch after
/// the work already queued on the calling thread: the requests read in the same turn of
/// a loop then join the batch instead of waiting for the next one. Nothing waits on a
/// clock.
public struct BatchStart: Sendable {
    private let deferral: Callback<@Sendable () -> Void>?

    /// Every batch begins at once, on the thread that submitted its first item.
    public static let immediately = BatchStart(deferral: nil)

    /// `deferral` is given a batch's beginning and runs it (at once, or after other work).
    public init(_ deferral: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) {
        self.init(deferral: Callback(deferral))
    }

    private init(deferral: Callback<@Sendable () -> Void>?) {
        self.deferral = deferral
    }

    @usableFromInline
    func begin(_ work: @escaping @Sendable () -> Void) {
        if let deferral { deferral.call(work) } else { work() }
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
