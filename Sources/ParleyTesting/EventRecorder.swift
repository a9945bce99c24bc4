public import ParleyCore
import Synchronization

/// Collects a connection's events in the background so a test can wait for one.
public final class EventRecorder: Sendable {
    private final class Log: Sendable {
        let events = Mutex<[ChatEvent]>([])
    }

    private let log = Log()
    private let task: Task<Void, Never>

    public init(_ service: any ChatService) {
        let log = log
        task = Task {
            for await event in service.events { log.events.withLock { $0.append(event) } }
        }
    }

    deinit { task.cancel() }

    public var events: [ChatEvent] { log.events.withLock { $0 } }

    /// Waits until an event matches, or `timeout` passes (then nil). The timeout only
    /// guards against a hang; it is not a speed check.
    public func first(timeout: Duration = .seconds(120), where match: (ChatEvent) -> Bool) async -> ChatEvent? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let event = events.first(where: match) { return event }
            guard await pause(.milliseconds(5)) else { break }
        }
        return events.first(where: match)
    }

    /// Waits until `count` events match, or `timeout` passes; returns how many matched.
    public func count(_ count: Int, timeout: Duration = .seconds(120), where match: (ChatEvent) -> Bool) async -> Int {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline, events.filter(match).count < count {
            guard await pause(.milliseconds(5)) else { break }
        }
        return events.filter(match).count
    }

    /// The messages received so far, once at least `count` have come (or the timeout
    /// passed).
    public func messages(count: Int, timeout: Duration = .seconds(120)) async -> [Message] {
        let isMessage: (ChatEvent) -> Bool = { if case .message = $0 { true } else { false } }
        _ = await self.count(count, timeout: timeout, where: isMessage)
        return events.compactMap { if case .message(let data) = $0 { data.message } else { nil } }
    }
}
