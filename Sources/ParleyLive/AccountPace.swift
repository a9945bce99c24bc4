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
    public let perSecond: Int
    public let burst: Int
    private struct State {
        var allowances: [Key: TokenAllowance] = [:]
        var takes: UInt = 0
    }
    private let state = Mutex(State())

    /// `perSecond` 0: no limit.
    public init(perSecond: Int, burst: Int? = nil) {
        self.perSecond = max(0, perSecond)
        self.burst = max(1, burst ?? self.perSecond.multipliedReportingOverflow(by: 2).partialValue)
    }

    public var isLimited: Bool { perSecond > 0 }

    /// Takes one of the account's tokens if one is there at `now`.
    public func take(for user: Key, at now: ContinuousClock.Instant) -> Bool {
        guard isLimited else { return true }
        return withAllowance(of: user, at: now) { $0.take(at: now) }
    }

    /// Takes a token even when none is left; returns how long to wait before using it.
    public func takeOwing(for user: Key, at now: ContinuousClock.Instant) -> Duration {
        guard isLimited else { return .zero }
        return withAllowance(of: user, at: now) { $0.takeOwing(at: now) }
    }

    /// How long until the account has a whole token, as of its last take.
    public func untilNextToken(for user: Key) -> Duration {
        guard isLimited else { return .zero }
        return state.withLock { $0.allowances[user]?.untilNextToken ?? .zero }
    }

    /// Keys with an entry (for tests and metrics).
    public var tracked: Int { state.withLock { $0.allowances.count } }

    private func withAllowance<Result>(
        of user: Key, at now: ContinuousClock.Instant, _ body: (inout TokenAllowance) -> Result
    ) -> Result {
        state.withLock { state in
            state.takes &+= 1
            if state.takes % 4096 == 0 { prune(&state, at: now) }
            var allowance = state.allowances[user] ?? TokenAllowance(perSecond: perSecond, burst: burst)
            let result = body(&allowance)
            state.allowances[user] = allowance
            return result
        }
    }

    private func prune(_ state: inout State, at now: ContinuousClock.Instant) {
        let full = Double(burst)
        state.allowances = state.allowances.filter { _, allowance in
            var allowance = allowance
            allowance.refill(at: now)
            return allowance.tokens < full
        }
    }
}
