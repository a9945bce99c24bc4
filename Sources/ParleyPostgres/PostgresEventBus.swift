public import Foundation
public import Logging
import NIOCore
public import ParleyCore
public import ParleyLive
import ParleyStore
import PostgresNIO
public import ServiceLifecycle
import Synchronization

/// `EventBus` between `parley serve` nodes on one PostgreSQL database. Each event is a
/// row of `event` with its recipients; a node learns of new rows by LISTEN/NOTIFY and
/// reads them from the table, so each node delivers to its own sockets, in position
/// order, and a client resumes on any node (positions are the database's).
///
/// A message's event is written by the message writer in the message's own statement
/// (`InsertMessage`): an empty body, and the reader reads the message and its chat with
/// the event. So a stored message always has its event, and a send costs no publish of
/// its own. Every other event is its wire frame, published here in batches.
///
/// Positions are taken in commit order: publishers hold one transaction-scoped advisory
/// lock from `nextval` to commit, so a reader that has seen position P never later
/// finds a row below P. The lock costs little, since PostgreSQL already serialises
/// notifying commits, and publishes that arrive together share one transaction and one
/// NOTIFY. A node that missed notifications (a lost connection) catches up from the
/// table; it also looks every two seconds.
public final class PostgresEventBus: EventBus, Service {
    private struct Subscriber {
        var user: UserID
        var tokenHash: Data?
        /// Where its events go, to be delivered off the lock.
        var queue: SubscriberQueue
        /// Live events wait here while the subscriber's missed events are read.
        var buffer: [PositionedEvent]?
        /// Events at or below this the client already has.
        var seenThrough: UInt64
    }

    private struct State {
        var nextID = 0
        /// The newest position read from the table and delivered.
        var delivered: UInt64 = 0
        var subscribers: [SubscriptionID: Subscriber] = [:]
        var byUser: [UserID: Set<SubscriptionID>] = [:]
    }

    private struct Outgoing: Sendable {
        var recipients: [Int64]
        var origin: Data?
        var kept: Bool
        var membershipChat: Int64?
        var body: String
    }

    public let epoch: String
    private let client: PostgresClient
    /// The reader's own connection (it queries after every notification), and the
    /// publisher's (a batch of events after every commit).
    private let reader: DedicatedConnection
    private let publisher: DedicatedConnection
    private let logger: Logger
    private let keep: Int64
    private let state: Mutex<State>
    /// Publishes that arrive together go in one call.
    private let outgoing: BatchQueue<Outgoing, Void>
    private let membership = Mutex<Callback<ChatID>?>(nil)
    private let prunedThrough: Atomic<UInt64>
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation
    /// The notification channel (`parley_publish` in migration 3 names it too).
    static let channel = "parley_events"

    /// Reads the database's epoch and newest position: a new node delivers what is
    /// published from now on, and resumes from the table.
    /// - Parameter keep: how many recent events the table keeps for resuming.
    public static func open(store: PostgresChatStore, keep: Int = 2_000_000, logger: Logger) async throws -> PostgresEventBus {
        let rows = try await PostgresChatStore.withConnection(to: store.location, logger: logger) { connection in
            try await connection.query(
                "SELECT epoch, pruned_through, (SELECT coalesce(max(position), 0) FROM event) FROM bus WHERE id = 1", logger: logger
            ).collect()
        }
        guard let row = rows.first else { throw ParleyError(.unavailable, "the database has no event bus: was it migrated?") }
        let (epoch, pruned, newest) = try row.decode((String, Int64, Int64).self)
        // Its one query is planned once for the connection, and never as a scan of a
        // whole table: a plan made while the tables were small would keep scanning them
        // once they are not.
        let reader = DedicatedConnection(
            location: store.location, name: "event reader", setup: ["SET enable_seqscan = off"], on: store.loops, logger: logger)
        // No wake from this node's message writer: its commit's notification comes once
        // the rows can be read, where a read at once (a lone message's result arrives
        // before its implicit commit ends) measured slower (docs/performance.md).
        return PostgresEventBus(
            client: store.client, reader: reader, epoch: epoch, newest: UInt64(max(0, newest)), pruned: UInt64(max(0, pruned)), keep: keep,
            start: store.batchStart, loops: store.loops, logger: logger)
    }

    private init(
        client: PostgresClient, reader: DedicatedConnection, epoch: String, newest: UInt64, pruned: UInt64, keep: Int, start: BatchStart,
        loops: any EventLoopGroup, logger: Logger
    ) {
        self.client = client
        self.reader = reader
        let publisher = DedicatedConnection(location: reader.location, name: "event publisher", on: loops, logger: logger)
        self.publisher = publisher
        self.epoch = epoch
        self.logger = logger
        self.keep = Int64(max(1, keep))
        var initial = State()
        initial.delivered = newest
        state = Mutex(initial)
        prunedThrough = Atomic(pruned)
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        (self.wakes, self.wake) = (wakes, wake)
        outgoing = BatchQueue(start: start, executor: publisher.executor) { batch in
            await Self.write(batch, connection: publisher, logger: logger)
            wake.yield()
            return batch.map { _ in .success(()) }
        }
    }

    public var position: UInt64 { state.withLock { $0.delivered } }

    public var backlogSize: Int {
        Int(clamping: position &- min(position, prunedThrough.load(ordering: .relaxed)))
    }

    public func onMembershipChange(_ changed: @escaping @Sendable (ChatID) -> Void) {
        let callback = Callback(changed)
        membership.withLock { $0 = callback }
    }

    // Publishing

    public func publish(_ event: ChatEvent, to users: [UserID], except origin: EventOrigin?) async {
        guard !users.isEmpty else { return }
        // The message writer wrote it with its message (`InsertMessage`).
        if case .message = event { return }
        guard let body = EventEncoding.encode(event).map({ String(decoding: $0, as: UTF8.self) }) else {
            logger.error("an event could not be encoded", metadata: ["event": "\(event.type)"])
            return
        }
        let kept = !event.isTransient
        // The writer retries and never throws.
        try? await outgoing.submit(
            Outgoing(
                recipients: users.map(\.rawValue), origin: origin?.tokenHash, kept: kept,
                membershipChat: Self.membershipChat(of: event)?.rawValue, body: body))
    }

    /// The chat whose members, roles or rules an event changes: other nodes forget
    /// what they cached of it.
    private static func membershipChat(of event: ChatEvent) -> ChatID? {
        switch event {
        case .memberJoined, .memberLeft, .memberKicked, .roleChanged, .chatUpdated: event.chatID
        case .chatCreated, .message, .readMarkerMoved, .presenceChanged, .chatDeleted, .messageEdited, .messageDeleted, .reactionChanged,
            .typing, .away, .invited, .renamed, .tagged, .reminder, .wallops, .notifyChanged, .threadUpdated:
            nil
        }
    }

    /// Writes a batch (three tries), then has this node's reader look at once.
    private static func write(_ batch: [Outgoing], connection: DedicatedConnection, logger: Logger) async {
        for attempt in 1...3 {
            do {
                // One statement, so one transaction and one round trip (see migration 3).
                let statement = Publish(
                    recipients: batch.map { "{" + $0.recipients.map(String.init).joined(separator: ",") + "}" },
                    origins: batch.map { $0.origin?.hex ?? "" }, kept: batch.map(\.kept),
                    chats: batch.map { $0.membershipChat ?? 0 }, messages: batch.map { _ in 0 }, bodies: batch.map(\.body),
                    at: Date().storedMilliseconds)
                try await connection.run { connection in
                    for try await _ in try await connection.execute(statement, logger: logger) {}
                }
                return
            } catch {
                logger.error(
                    "events not published",
                    metadata: ["attempt": "\(attempt)", "events": "\(batch.count)", "error": "\(PostgresChatStore.describe(error))"])
                if attempt < 3 { try? await Task.sleep(for: .milliseconds(100 * attempt)) }
            }
        }
    }

    // Subscribing

    public func subscribe(
        _ user: UserID, tokenHash: Data?, after: EventPosition?, deliver: @escaping @Sendable (PositionedEvent) -> Void
    ) async -> (subscription: SubscriptionID, complete: Bool) {
        let (id, through) = state.withLock { state in
            state.nextID += 1
            let id = SubscriptionID(rawValue: state.nextID)
            let seen = after.flatMap { $0.epoch == epoch ? $0.position : nil } ?? 0
            state.subscribers[id] = Subscriber(
                user: user, tokenHash: tokenHash, queue: SubscriberQueue(deliver), buffer: after == nil ? nil : [], seenThrough: seen)
            state.byUser[user, default: []].insert(id)
            return (id, state.delivered)
        }
        guard let after else { return (id, true) }
        var complete = after.epoch == epoch
        if complete {
            do {
                let pruned =
                    try await client.query("SELECT pruned_through FROM bus WHERE id = 1", logger: logger).collect().first?
                    .decode(Int64.self) ?? 0
                complete = Int64(clamping: after.position) >= pruned
                // Integers only in the text: nothing a client sent.
                let events = """
                    SELECT * FROM event WHERE position > \(Int64(clamping: after.position)) AND position <= \(Int64(clamping: through))
                        AND kept AND recipients @> ARRAY[\(user.rawValue)]::bigint[]
                    """
                let rows = try await client.query(PostgresQuery(unsafeSQL: ReadEvents.select(from: events)), logger: logger).collect()
                for row in rows {
                    guard let read = decode(row), tokenHash == nil || read.event.originToken != tokenHash else { continue }
                    deliver(read.event)
                }
            } catch {
                logger.error("missed events could not be read", metadata: ["error": "\(PostgresChatStore.describe(error))"])
                complete = false
            }
        }
        // Live events that came meanwhile, then live: queued under the lock, so none slips between.
        let queue = state.withLock { state -> SubscriberQueue? in
            guard var subscriber = state.subscribers[id] else { return nil }
            for event in subscriber.buffer ?? [] where event.position > subscriber.seenThrough {
                _ = subscriber.queue.put(event, trace: nil)
            }
            subscriber.buffer = nil
            state.subscribers[id] = subscriber
            return subscriber.queue
        }
        queue?.deliverWaiting()
        return (id, complete)
    }

    public func unsubscribe(_ subscription: SubscriptionID) {
        let queue = state.withLock { state -> SubscriberQueue? in
            guard let subscriber = state.subscribers.removeValue(forKey: subscription) else { return nil }
            state.byUser[subscriber.user]?.remove(subscription)
            if state.byUser[subscriber.user]?.isEmpty == true { state.byUser[subscriber.user] = nil }
            return subscriber.queue
        }
        queue?.close()
    }

    // Reading

    /// An event from a row of `ReadEvents.select`; nil for a message event whose message
    /// is gone (its chat was deleted), and for a row that does not decode (logged: one
    /// such row must not stop the reader).
    private func decode(_ row: PostgresRow) -> ReadEvent? {
        do {
            return try ReadEvents.event(from: row)
        } catch {
            var cells = Cells(row)
            let position = (try? cells.next(Int64.self)).map(String.init) ?? "?"
            logger.error("an event could not be read", metadata: ["position": "\(position)", "error": "\(String(reflecting: error))"])
            return nil
        }
    }

    /// Reads and delivers every event after the last one delivered.
    private func readNew() async throws {
        while true {
            let after = state.withLock { $0.delivered }
            let rows = try await reader.run { connection in
                var rows: [PostgresRow] = []
                for try await row in try await connection.execute(ReadEvents(after: Int64(clamping: after)), logger: logger) {
                    rows.append(row)
                }
                return rows
            }
            let reads = rows.compactMap { decode($0) }
            let invalidate = membership.withLock { $0 }
            for read in reads { if let chat = read.membershipChat { invalidate?.call(ChatID(chat)) } }
            let touched = state.withLock { state in
                var touched = TouchedQueues()
                for read in reads where read.event.position > state.delivered {
                    state.delivered = read.event.position
                    for recipient in read.recipients {
                        for id in state.byUser[UserID(recipient)] ?? [] {
                            guard var subscriber = state.subscribers[id] else { continue }
                            if let origin = read.event.originToken, origin == subscriber.tokenHash { continue }
                            if subscriber.buffer != nil {
                                subscriber.buffer?.append(read.event)
                                state.subscribers[id] = subscriber
                            } else if read.event.position > subscriber.seenThrough {
                                touched.put(read.event, trace: nil, in: subscriber.queue)
                            }
                        }
                    }
                }
                // Rows that did not decode still move the reader on.
                if let last = rows.last, let position = try? last.makeRandomAccess()[0].decode(Int64.self, context: .default) {
                    state.delivered = max(state.delivered, UInt64(max(0, position)))
                }
                return touched
            }
            touched.deliver()
            if rows.count < 1000 { return }
        }
    }

    // Running

    /// Listens for notifications, reads what they announce, looks every two seconds
    /// in case one was missed, and prunes the table; until graceful shutdown.
    public func run() async {
        // The listener is left to end with its connection when the pool stops: a
        // notification sequence does not end when its task is cancelled.
        let listener = Task { await self.listen() }
        defer { listener.cancel() }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask(executorPreference: self.reader.executor) { await self.read() }
                group.addTask {
                    var ticks = 0
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .seconds(2))
                        self.wake.yield()
                        ticks += 1
                        if ticks % 30 == 0 { await self.prune() }
                    }
                }
                await group.waitForAll()
            }
        }
        // The reader has stopped; publishes from now on fail as the pool's queries do.
        await reader.close()
        await publisher.close()
    }

    private func read() async {
        for await _ in wakes {
            if Task.isCancelled { return }
            do { try await readNew() } catch {
                logger.warning("reading events failed; retrying", metadata: ["error": "\(PostgresChatStore.describe(error))"])
            }
        }
    }

    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        // Whatever came while not listening.
                        self.wake.yield()
                        for try await _ in notifications { self.wake.yield() }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("listening for events failed; reconnecting", metadata: ["error": "\(PostgresChatStore.describe(error))"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Keeps the newest `keep` events; a resume from before them is incomplete.
    private func prune() async {
        do {
            let rows = try await client.query(
                """
                WITH cut AS (SELECT coalesce(max(position), 0) - \(keep) AS through FROM event),
                     gone AS (DELETE FROM event WHERE position <= (SELECT through FROM cut) RETURNING position)
                UPDATE bus SET pruned_through = greatest(pruned_through, coalesce((SELECT max(position) FROM gone), 0))
                WHERE id = 1 RETURNING pruned_through
                """, logger: logger
            ).collect()
            if let pruned = try rows.first?.decode(Int64.self) { prunedThrough.store(UInt64(max(0, pruned)), ordering: .relaxed) }
        } catch {
            logger.warning("pruning events failed", metadata: ["error": "\(PostgresChatStore.describe(error))"])
        }
    }
}
