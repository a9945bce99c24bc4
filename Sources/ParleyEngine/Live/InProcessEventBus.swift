public import Foundation
public import ParleyCore
public import ParleyLive
import Synchronization

/// `EventBus` within one process: a table of subscribers per user, and a bounded backlog
/// of each user's events for resuming. The backlogs together hold at most
/// `totalBacklog` entries: past it, the backlogs of users with no live session go, and
/// their resumes answer `complete: false`.
///
/// With a journal (SQLite's), positions are the journal's and outlive the process: a
/// resume from before this process reads what it missed from the journal. A message's
/// position is taken in its transaction, so positions can reach the bus out of order;
/// each is delivered once every earlier one has been (or was abandoned).
public final class InProcessEventBus: EventBus {
    private struct Backlog {
        var events: [PositionedEvent] = []
        var start = 0
        /// The bus position when this backlog began: a user whose earlier backlog was
        /// evicted may have lost events before it.
        var since: UInt64 = 0
        var count: Int { events.count - start }
        /// The newest position that was dropped to keep the backlog bounded.
        var droppedThrough: UInt64 = 0

        /// Appends `event`, dropping the oldest at `capacity`; returns how much the
        /// backlog grew (1, or 0 when one was dropped).
        @discardableResult
        mutating func append(_ event: PositionedEvent, capacity: Int) -> Int {
            var grew = 1
            if events.count - start >= capacity {
                grew = 0
                droppedThrough = events[start].position
                start += 1
                if start >= capacity {
                    events.removeFirst(start)
                    start = 0
                }
            }
            events.append(event)
            return grew
        }

        func after(_ position: UInt64) -> ArraySlice<PositionedEvent> {
            let live = events[start...]
            // Positions increase along the backlog: binary search for the first newer one.
            var low = live.startIndex
            var high = live.endIndex
            while low < high {
                let middle = (low + high) / 2
                if live[middle].position <= position { low = middle + 1 } else { high = middle }
            }
            return live[low...]
        }
    }

    /// A published event waiting for the positions before it.
    private enum Waiting {
        /// `trace`: the send that published it, when traced (`StageLog`), for its deliveries.
        case event(PositionedEvent, to: [UserID], except: SubscriptionID?, record: Bool, trace: StageTrace?)
        case nothing
    }

    private struct State {
        var nextID = 0
        /// Every position up to this one has been delivered (or named nothing).
        var position: UInt64 = 0
        var waiting: [UInt64: Waiting] = [:]
        /// Since when the next position has kept later ones waiting.
        var stalledSince: ContinuousClock.Instant?
        /// Each user's live sessions: a list, as most users have one (a dictionary each
        /// cost an idle session 120 bytes).
        var subscribers: [UserID: [(id: SubscriptionID, queue: SubscriberQueue)]] = [:]
        var owners: [SubscriptionID: UserID] = [:]
        var backlogs: [UserID: Backlog] = [:]
        /// Entries in all backlogs.
        var kept = 0
        /// The newest position of any backlog that was evicted whole.
        var evictedThrough: UInt64 = 0

        /// Drops the backlogs of users with no live session until a quarter of `limit`
        /// is free; if every user is live, the largest backlogs go too.
        mutating func evict(below limit: Int) {
            let target = limit - limit / 4
            for (user, backlog) in backlogs where subscribers[user] == nil {
                drop(user, backlog)
                if kept <= target { return }
            }
            for (user, backlog) in backlogs.sorted(by: { $0.value.count > $1.value.count }) {
                drop(user, backlog)
                if kept <= target { return }
            }
        }

        private mutating func drop(_ user: UserID, _ backlog: Backlog) {
            kept -= backlog.count
            evictedThrough = max(evictedThrough, backlog.events.last?.position ?? 0)
            backlogs[user] = nil
        }
    }

    public let epoch: String
    private let backlogCapacity: Int
    private let totalBacklog: Int
    private let state = Mutex(State())
    private let journal: (any EventJournal)?
    /// Positions up to this one are the journal's from before this process.
    private let startedAfter: UInt64

    /// - Parameters:
    ///   - backlog: how many recent events to keep per user for resuming.
    ///   - totalBacklog: how many to keep for all users together.
    ///   - journal: where events are kept across restarts, if anywhere.
    public init(backlog: Int = 1024, totalBacklog: Int = 2_000_000, journal: (any EventJournal)? = nil) {
        self.epoch = journal?.epoch ?? UUID().uuidString.lowercased().prefix(8).description
        self.backlogCapacity = max(1, backlog)
        self.totalBacklog = max(self.backlogCapacity, totalBacklog)
        self.journal = journal
        startedAfter = journal?.newestAtOpen ?? 0
        state.withLock { $0.position = startedAfter }
        journal?.onAbandoned { [weak self] positions in self?.abandon(positions) }
    }

    public var position: UInt64 { state.withLock { $0.position } }

    /// Entries in all backlogs together.
    public var backlogSize: Int { state.withLock { $0.kept } }

    public func subscribe(
        _ user: UserID, tokenHash: Data?, after: EventPosition?, deliver: @escaping @Sendable (PositionedEvent) -> Void
    ) async -> (subscription: SubscriptionID, complete: Bool) {
        var after = after
        var complete = true
        // From before this process: what the journal kept, then this process's backlog.
        if let journal, let from = after, from.epoch == epoch, from.position < startedAfter {
            do {
                let (events, more) = try await journal.events(of: user, after: from.position, through: startedAfter, limit: backlogCapacity)
                complete = !more && from.position >= journal.prunedThrough
                for event in events where tokenHash == nil || event.originToken != tokenHash { deliver(event) }
            } catch {
                complete = false
            }
            after = EventPosition(epoch: epoch, position: startedAfter)
        }
        let queue = SubscriberQueue(deliver)
        let (id, isComplete) = state.withLock { state in
            state.nextID += 1
            let id = SubscriptionID(rawValue: state.nextID)
            if let after {
                // Queued under the lock, so no live event can overtake the backlog.
                if after.epoch != epoch {
                    complete = false
                } else if let backlog = state.backlogs[user] {
                    let maybeEvicted = after.position < backlog.since && state.evictedThrough > after.position
                    complete = complete && backlog.droppedThrough <= after.position && !maybeEvicted
                    for event in backlog.after(after.position) where tokenHash == nil || event.originToken != tokenHash {
                        _ = queue.put(event, trace: nil)
                    }
                } else {
                    complete = complete && state.evictedThrough <= after.position
                }
            }
            state.subscribers[user, default: []].append((id, queue))
            state.owners[id] = user
            return (id, complete)
        }
        queue.deliverWaiting()
        return (id, isComplete)
    }

    public func unsubscribe(_ subscription: SubscriptionID) {
        let queue = state.withLock { state -> SubscriberQueue? in
            guard let user = state.owners.removeValue(forKey: subscription) else { return nil }
            let queue = state.subscribers[user]?.first { $0.id == subscription }?.queue
            state.subscribers[user]?.removeAll { $0.id == subscription }
            if state.subscribers[user]?.isEmpty == true { state.subscribers[user] = nil }
            return queue
        }
        queue?.close()
    }

    public func publish(_ event: ChatEvent, to users: [UserID], except origin: EventOrigin?) async {
        // A message the store kept has its position already, and its event is kept.
        var taken: UInt64?
        if let journal, case .message(let message) = event { taken = journal.takenPosition(of: message.message.id) }
        let record = journal != nil && taken == nil && !event.isTransient
        let touched = state.withLock { state in
            var touched = TouchedQueues(capacity: users.count)
            let position = taken ?? journal?.takePosition() ?? state.position + 1
            let published = PositionedEvent(event: event, position: position, originToken: origin?.tokenHash)
            if position <= state.position {
                // Given up on: late, but still delivered.
                queue(published, to: users, except: origin?.subscription, record: record, trace: StageTrace.current, &state, &touched)
            } else {
                state.waiting[position] = .event(
                    published, to: users, except: origin?.subscription, record: record, trace: StageTrace.current)
                queueInOrder(&state, &touched)
            }
            return touched
        }
        touched.deliver()
    }

    /// A message stored but not announced (its chat went meanwhile): its position names
    /// nothing.
    public func abandon(_ message: MessageID) {
        if let position = journal?.takenPosition(of: message) { abandon([position]) }
    }

    private func abandon(_ positions: [UInt64]) {
        let touched = state.withLock { state in
            var touched = TouchedQueues()
            for position in positions where position > state.position { state.waiting[position] = .nothing }
            queueInOrder(&state, &touched)
            return touched
        }
        touched.deliver()
    }

    /// Queues the waiting events whose turn it is for their subscribers, under the lock,
    /// so every session of a user sees events in position order; they are delivered
    /// after it (`TouchedQueues.deliver`). A position that keeps later ones waiting for
    /// five seconds is given up (its event, if it comes, is delivered late).
    private func queueInOrder(_ state: inout State, _ touched: inout TouchedQueues) {
        while true {
            guard let next = state.waiting.removeValue(forKey: state.position + 1) else { break }
            state.position += 1
            state.stalledSince = nil
            if case .event(let published, let users, let except, let record, let trace) = next {
                queue(published, to: users, except: except, record: record, trace: trace, &state, &touched)
            }
        }
        guard !state.waiting.isEmpty else { return }
        let now = ContinuousClock.now
        guard let since = state.stalledSince else {
            state.stalledSince = now
            return
        }
        if now - since > .seconds(5), let first = state.waiting.keys.min() {
            state.position = first - 1
            state.stalledSince = nil
            queueInOrder(&state, &touched)
        }
    }

    private func queue(
        _ published: PositionedEvent, to users: [UserID], except: SubscriptionID?, record: Bool, trace: StageTrace?, _ state: inout State,
        _ touched: inout TouchedQueues
    ) {
        if record { journal?.record(published, recipients: users) }
        let kept = !published.event.isTransient
        for user in users {
            if kept {
                state.kept += state.backlogs[user, default: Backlog(since: published.position - 1)].append(
                    published, capacity: backlogCapacity)
            }
            guard let subscribers = state.subscribers[user] else { continue }
            for (id, queue) in subscribers where id != except { touched.put(published, trace: trace, in: queue) }
        }
        if state.kept > totalBacklog { state.evict(below: totalBacklog) }
    }
}
