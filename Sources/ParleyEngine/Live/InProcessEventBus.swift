public import Foundation
public import ParleyCore
public import ParleyLive
import Synchronization

/// `EventBus` within one process: a table of subscribers per user, and a bounded backlog
/// of each user's events for resuming. The backlogs together hold at most
/// `totalBacklog` entries: past it, the backlogs of users with no live session go, and
/// their resumes answer `complete: false`.
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

    private struct State {
        var nextID = 0
        var position: UInt64 = 0
        var subscribers: [UserID: [SubscriptionID: @Sendable (PositionedEvent) -> Void]] = [:]
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

    /// - Parameters:
    ///   - backlog: how many recent events to keep per user for resuming.
    ///   - totalBacklog: how many to keep for all users together.
    public init(backlog: Int = 1024, totalBacklog: Int = 2_000_000) {
        self.epoch = UUID().uuidString.lowercased().prefix(8).description
        self.backlogCapacity = max(1, backlog)
        self.totalBacklog = max(self.backlogCapacity, totalBacklog)
    }

    public var position: UInt64 { state.withLock { $0.position } }

    /// Entries in all backlogs together.
    public var backlogSize: Int { state.withLock { $0.kept } }

    public func subscribe(
        _ user: UserID, tokenHash: Data?, after: EventPosition?, deliver: @escaping @Sendable (PositionedEvent) -> Void
    ) -> (subscription: SubscriptionID, complete: Bool) {
        state.withLock { state in
            state.nextID += 1
            let id = SubscriptionID(rawValue: state.nextID)
            var complete = true
            if let after {
                // Replayed under the lock, so no live event can overtake the backlog.
                if after.epoch != epoch {
                    complete = false
                } else if let backlog = state.backlogs[user] {
                    let maybeEvicted = after.position < backlog.since && state.evictedThrough > after.position
                    complete = backlog.droppedThrough <= after.position && !maybeEvicted
                    for event in backlog.after(after.position) where tokenHash == nil || event.originToken != tokenHash {
                        deliver(event)
                    }
                } else {
                    complete = state.evictedThrough <= after.position
                }
            }
            state.subscribers[user, default: [:]][id] = deliver
            state.owners[id] = user
            return (id, complete)
        }
    }

    public func unsubscribe(_ subscription: SubscriptionID) {
        state.withLock { state in
            guard let user = state.owners.removeValue(forKey: subscription) else { return }
            state.subscribers[user]?[subscription] = nil
            if state.subscribers[user]?.isEmpty == true { state.subscribers[user] = nil }
        }
    }

    public func publish(_ event: ChatEvent, to users: [UserID], except origin: EventOrigin?) async {
        let kept = !event.isTransient
        let capacity = backlogCapacity
        // Delivered under the lock: every session of a user sees events in position order.
        state.withLock { state in
            state.position += 1
            let published = PositionedEvent(event: event, position: state.position, originToken: origin?.tokenHash)
            for user in users {
                if kept {
                    state.kept += state.backlogs[user, default: Backlog(since: state.position - 1)].append(published, capacity: capacity)
                }
                guard let subscribers = state.subscribers[user] else { continue }
                for (id, deliver) in subscribers where id != origin?.subscription { deliver(published) }
            }
            if state.kept > totalBacklog { state.evict(below: totalBacklog) }
        }
    }
}
