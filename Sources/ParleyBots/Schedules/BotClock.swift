public import Foundation
import Synchronization

/// The time a bot host's schedules follow: the wall clock, or (in `parley bot test`) a
/// clock moved by hand so that "in ten minutes" takes no time.
public protocol BotClock: Sendable {
    func now() -> Date
    /// Returns at `date` (at once if it has passed); throws when the task is cancelled.
    func sleep(until date: Date) async throws
    /// Whether a jump of this clock stands for time that passed with the host running:
    /// then every beat within it gets its tick, in order, as a server's would have. The
    /// wall clock's jumps (a machine that slept) give a missed beat one tick.
    var replaysEveryBeat: Bool { get }
}

extension BotClock {
    public var replaysEveryBeat: Bool { false }
}

/// The wall clock. A long wait is taken in steps of at most a minute, so a clock set
/// forward or back (or a machine that slept) is noticed within one.
public struct SystemBotClock: BotClock {
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(until date: Date) async throws {
        while true {
            let left = date.timeIntervalSinceNow
            if left <= 0 { return }
            try await Task.sleep(for: .milliseconds(Int64(min(left, 60) * 1000) + 1))
        }
    }
}

/// A clock that moves only when told (`advance`); sleepers whose time has come then wake.
public final class ManualBotClock: BotClock {
    private struct Sleeper {
        var until: Date
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    public init(start: Date) {
        state = Mutex(State(now: start))
    }

    public func now() -> Date { state.withLock { $0.now } }

    /// `wait 5m` in a transcript is five minutes of a running host: each beat fires.
    public var replaysEveryBeat: Bool { true }

    /// Moves the clock on by `seconds` and wakes whoever's time has come.
    public func advance(by seconds: TimeInterval) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.addingTimeInterval(max(0, seconds))
            let due = state.sleepers.filter { $0.value.until <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    public func sleep(until date: Date) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = state.withLock { state in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if date <= state.now { return .success(()) }
                    state.sleepers[id] = Sleeper(until: date, continuation: continuation)
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}
