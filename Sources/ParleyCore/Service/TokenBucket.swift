import Synchronization

/// A rate limit: `perSecond` tokens a second, holding up to `burst`. Each allowed
/// action takes one. Zero `perSecond` means no limit.
///
/// ```swift
/// let limit = TokenBucket(perSecond: 5, burst: 10)
/// guard limit.allow() else { throw ParleyError(.rateLimited, "slow down") }
/// ```
public final class TokenBucket: Sendable {
    private let allowance: Mutex<TokenAllowance>
    private let unlimited: Bool

    public init(perSecond: Int, burst: Int) {
        unlimited = perSecond <= 0
        allowance = Mutex(TokenAllowance(perSecond: perSecond, burst: burst))
        allowance.withLock { $0.refill(at: .now) }
    }

    public func allow() -> Bool {
        guard !unlimited else { return true }
        return allowance.withLock { $0.take(at: .now) }
    }

    /// Takes a token even when none is left, and returns how long to wait before using
    /// it: zero while the burst lasts, then one `perSecond`th of a second apart.
    public func take() -> Duration {
        guard !unlimited else { return .zero }
        return allowance.withLock { $0.takeOwing(at: .now) }
    }
}
