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
    /// Its encodings: one per front end that has delivered it (WebSocket, IRC), two at
    /// most (a third would replace the second).
    private let encodings = Mutex<(first: (any AnyObject & Sendable)?, second: (any AnyObject & Sendable)?)>((nil, nil))

    public init(event: ChatEvent, position: UInt64, originToken: Data?) {
        self.event = event
        self.position = position
        self.originToken = originToken
    }

    /// The event's encoding of type `Encoding`, made by `encode` for the first caller
    /// and shared by the others. A class, so the check of a cached one's type is a
    /// pointer comparison, not a dynamic cast of an existential (which was 5% of a busy
    /// server). Each front end keeps its own: one does not replace another's.
    public func encoded<Encoding: AnyObject & Sendable>(_ encode: (PositionedEvent) -> Encoding) -> Encoding {
        let (first, second) = encodings.withLock { $0 }
        if let cached = first as? Encoding { return cached }
        if let cached = second as? Encoding { return cached }
        let made = encode(self)
        // Two subscribers' deliveries may encode at once (the bus hands off to each queue
        // outside its lock): the first one kept is the one both use.
        return encodings.withLock { encodings in
            if let cached = encodings.first as? Encoding { return cached }
            if let cached = encodings.second as? Encoding { return cached }
            if encodings.first == nil { encodings.first = made } else { encodings.second = made }
            return made
        }
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
    /// Says that a stored message will not be published (its chat went meanwhile), for
    /// a bus that gave its event a position when it was stored.
    func abandon(_ message: MessageID)
}

extension EventBus {
    public func abandon(_ message: MessageID) {}

    /// One process has no other nodes to hear from.
    public func onMembershipChange(_ changed: @escaping @Sendable (ChatID) -> Void) {}
}
