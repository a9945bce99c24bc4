import ParleyCore
import Synchronization

/// Identifies one subscriber (one live session) on an `EventBus`.
public struct SubscriptionID: Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
}

/// Carries events from the session that caused them to every live session of the users
/// concerned. `InProcessEventBus` serves one process; a bus over PostgreSQL can carry
/// them between server nodes.
public protocol EventBus: Sendable {
    func subscribe(_ user: UserID, deliver: @escaping @Sendable (ChatEvent) -> Void) -> SubscriptionID
    func unsubscribe(_ subscription: SubscriptionID)
    /// Delivers `event` to each live session of `users`, except `origin` (the session
    /// that caused it and already has the result).
    func publish(_ event: ChatEvent, to users: [UserID], except origin: SubscriptionID?) async
}

/// `EventBus` within one process: a table of subscribers per user.
public final class InProcessEventBus: EventBus {
    private struct State {
        var nextID = 0
        var subscribers: [UserID: [SubscriptionID: @Sendable (ChatEvent) -> Void]] = [:]
        var owners: [SubscriptionID: UserID] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func subscribe(_ user: UserID, deliver: @escaping @Sendable (ChatEvent) -> Void) -> SubscriptionID {
        state.withLock { state in
            state.nextID += 1
            let id = SubscriptionID(rawValue: state.nextID)
            state.subscribers[user, default: [:]][id] = deliver
            state.owners[id] = user
            return id
        }
    }

    public func unsubscribe(_ subscription: SubscriptionID) {
        state.withLock { state in
            guard let user = state.owners.removeValue(forKey: subscription) else { return }
            state.subscribers[user]?[subscription] = nil
            if state.subscribers[user]?.isEmpty == true { state.subscribers[user] = nil }
        }
    }

    public func publish(_ event: ChatEvent, to users: [UserID], except origin: SubscriptionID?) async {
        var targets: [@Sendable (ChatEvent) -> Void] = []
        targets.reserveCapacity(users.count)
        state.withLock { state in
            for user in users {
                guard let subscribers = state.subscribers[user] else { continue }
                for (id, deliver) in subscribers where id != origin { targets.append(deliver) }
            }
        }
        for deliver in targets { deliver(event) }
    }
}
