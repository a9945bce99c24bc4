public import Foundation
public import ParleyCore
import Synchronization

/// Identifies one subscriber (one live session) on an `EventBus`.
public struct SubscriptionID: Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
}

/// The session that caused an event: its live subscription does not get the event
/// (it already has the result), and neither does a later resume with the same token.
public struct EventOrigin: Sendable {
    public var subscription: SubscriptionID?
    public var tokenHash: Data?
    public init(subscription: SubscriptionID?, tokenHash: Data?) {
        self.subscription = subscription
        self.tokenHash = tokenHash
    }
}

/// An event as published: numbered, shared by every recipient, and encoded at most
/// once for all of them.
public final class PositionedEvent: Sendable {
    public let event: ChatEvent
    /// Increases with each event published on the bus; the events one user receives
    /// have increasing, not consecutive, positions.
    public let position: UInt64
    /// The token hash of the session that caused it, which does not get it back.
    public let originToken: Data?
    private let encoding = Mutex<(any AnyObject & Sendable)?>(nil)

    public init(event: ChatEvent, position: UInt64, originToken: Data?) {
        self.event = event
        self.position = position
        self.originToken = originToken
    }

    /// The event's encoding, made by `encode` for the first caller and shared by the
    /// others (one encoder per process, so the type is always the same). A class, so
    /// the check of the cached one's type is a pointer comparison, not a dynamic cast
    /// of an existential (which was 5% of a busy server).
    public func encoded<Encoding: AnyObject & Sendable>(_ encode: (PositionedEvent) -> Encoding) -> Encoding {
        if let cached = encoding.withLock({ $0 }) as? Encoding { return cached }
        let made = encode(self)
        encoding.withLock { $0 = made }
        return made
    }
}

/// Carries events from the session that caused them to every live session of the users
/// concerned, and keeps each user's recent events so a session that reconnects gets
/// what it missed. `InProcessEventBus` serves one process; a bus over PostgreSQL can
/// carry them between server nodes.
public protocol EventBus: Sendable {
    /// Changes whenever positions restart (a new process).
    var epoch: String { get }
    /// The position of the newest event published.
    var position: UInt64 { get }
    /// Events kept for sessions that resume, across all users.
    var backlogSize: Int { get }
    /// Subscribes a session of `user`. With `after`, first delivers the user's events
    /// after that position (minus those `tokenHash` caused); returns false in `complete`
    /// when some of them are no longer kept.
    /// Asynchronous, so a bus can read what was missed from a database.
    func subscribe(
        _ user: UserID, tokenHash: Data?, after: EventPosition?, deliver: @escaping @Sendable (PositionedEvent) -> Void
    ) async -> (subscription: SubscriptionID, complete: Bool)
    func unsubscribe(_ subscription: SubscriptionID)
    /// Delivers `event` to each live session of `users`, except its origin.
    func publish(_ event: ChatEvent, to users: [UserID], except origin: EventOrigin?) async
    /// Calls `changed` with each chat whose members or roles changed on another node
    /// (the engine knows of its own changes); set once, before events flow.
    func onMembershipChange(_ changed: @escaping @Sendable (ChatID) -> Void)
    /// Whether a message's event published twice is delivered once. Such a bus is told
    /// again of a message whose send is retried: the first attempt may have stored it
    /// and then died before its event went out (a node killed between the two).
    var deduplicatesMessages: Bool { get }
}

extension EventBus {
    public var deduplicatesMessages: Bool { false }

    /// One process has no other nodes to hear from.
    public func onMembershipChange(_ changed: @escaping @Sendable (ChatID) -> Void) {}
}

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
