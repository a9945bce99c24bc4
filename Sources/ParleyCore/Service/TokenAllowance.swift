/// The arithmetic of a rate limit: `perSecond` tokens a second, holding up to `burst`,
/// at times its caller gives (so tests can set the clock). `TokenBucket` keeps one
/// behind a lock for callers on any thread; a connection's flood control keeps one of
/// its own on its event loop.
///
/// ```swift
/// var allowance = TokenAllowance(perSecond: 10, burst: 20)
/// if allowance.take(at: .now) { handle(line) } else { wait(allowance.untilNextToken) }
/// ```
public struct TokenAllowance: Sendable {
    public let perSecond: Double
    public let burst: Double
    public private(set) var tokens: Double
    private var updated: ContinuousClock.Instant?

    public init(perSecond: Int, burst: Int) {
        self.perSecond = Double(max(0, perSecond))
        self.burst = Double(max(burst, 1))
        tokens = self.burst
    }

    /// Adds what the time since the last call earned, up to `burst`.
    public mutating func refill(at now: ContinuousClock.Instant) {
        defer { updated = now }
        guard let updated, now > updated else { return }
        tokens = min(burst, tokens + (now - updated).seconds * perSecond)
    }

    /// Takes a token if one is there at `now`.
    public mutating func take(at now: ContinuousClock.Instant) -> Bool {
        refill(at: now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Takes a token even when none is left, and returns how long to wait before using
    /// it: zero while the burst lasts, then one `perSecond`th of a second apart.
    public mutating func takeOwing(at now: ContinuousClock.Instant) -> Duration {
        refill(at: now)
        tokens -= 1
        return tokens >= 0 ? .zero : .seconds(-tokens / perSecond)
    }

    /// How long until a whole token is there, as of the last refill.
    public var untilNextToken: Duration {
        .seconds(max(0, 1 - tokens) / perSecond)
    }
}
