public import ParleyCore
import Synchronization

/// A rate shared by all of an account's connections on this node, on top of each
/// connection's own: opening more connections does not buy an account more lines or
/// requests a second.
public typealias AccountPace = KeyedPace<UserID>

/// A rate per key (an account, a webhook) on this node. A key that has used none of it
/// for a while holds no entry (entries back at their full burst are dropped every few
/// thousand takes).
///
/// ```swift
/// let pace = AccountPace(perSecond: 30, burst: 60)
/// if pace.take(for: user, at: .now) { handle(line) } else { wait(pace.untilNextToken(for: user)) }
/// ```
public final class KeyedPace<Key: Hashable & Sendable>: Sendable {
    private struct State {
        var perSecond: Int
        var burst: Int
        var allowances: [Key: TokenAllowance] = [:]
        var takes: UInt = 0
    }
    private let state: Mutex<State>
    /// The rate, read without the lock: with no limit, a take costs nothing.
    private let rate: Atomic<Int>

    /// `perSecond` 0: no limit.
    public init(perSecond: Int, burst: Int? = nil) {
        let initial = Self.state(perSecond: perSecond, burst: burst)
        state = Mutex(initial)
        rate = Atomic(initial.perSecond)
    }

    private static func state(perSecond: Int, burst: Int?) -> State {
        let perSecond = max(0, perSecond)
        return State(perSecond: perSecond, burst: max(1, burst ?? perSecond.multipliedReportingOverflow(by: 2).partialValue))
    }

    /// A new rate from now (a reload of the server's settings): every key starts again
    /// with a full burst of it.
    public func setRate(perSecond: Int, burst: Int? = nil) {
        let new = Self.state(perSecond: perSecond, burst: burst)
        state.withLock { $0 = new }
        rate.store(new.perSecond, ordering: .relaxed)
    }

    public var perSecond: Int { rate.load(ordering: .relaxed) }
    public var burst: Int { state.withLock { $0.burst } }
    public var isLimited: Bool { perSecond > 0 }

    /// Takes one of the account's tokens if one is there at `now`.
    public func take(for user: Key, at now: ContinuousClock.Instant) -> Bool {
        guard isLimited else { return true }
        return withAllowance(of: user, at: now) { $0.take(at: now) } ?? true
    }

    /// Takes a token even when none is left; returns how long to wait before using it.
    public func takeOwing(for user: Key, at now: ContinuousClock.Instant) -> Duration {
        guard isLimited else { return .zero }
        return withAllowance(of: user, at: now) { $0.takeOwing(at: now) } ?? .zero
    }

    /// How long until the account has a whole token, as of its last take.
    public func untilNextToken(for user: Key) -> Duration {
        state.withLock { $0.perSecond > 0 ? $0.allowances[user]?.untilNextToken ?? .zero : .zero }
    }

    /// Keys with an entry (for tests and metrics).
    public var tracked: Int { state.withLock { $0.allowances.count } }

    /// nil when there is no limit.
    private func withAllowance<Result>(
        of user: Key, at now: ContinuousClock.Instant, _ body: (inout TokenAllowance) -> Result
    ) -> Result? {
        state.withLock { state in
            guard state.perSecond > 0 else { return nil }
            state.takes &+= 1
            if state.takes % 4096 == 0 { prune(&state, at: now) }
            var allowance = state.allowances[user] ?? TokenAllowance(perSecond: state.perSecond, burst: state.burst)
            let result = body(&allowance)
            state.allowances[user] = allowance
            return result
        }
    }

    private func prune(_ state: inout State, at now: ContinuousClock.Instant) {
        let full = Double(state.burst)
        state.allowances = state.allowances.filter { _, allowance in
            var allowance = allowance
            allowance.refill(at: now)
            return allowance.tokens < full
        }
    }
}
