import Synchronization

/// A rate limit: `perSecond` tokens a second, holding up to `burst`. Each allowed
/// action takes one. Zero `perSecond` means no limit.
///
/// ```swift
/// let limit = TokenBucket(perSecond: 5, burst: 10)
/// guard limit.allow() else { throw ParleyError(.rateLimited, "slow down") }
/// ```
public final class TokenBucket: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let perSecond: Double
    private let burst: Double
    private let bucket: Mutex<Bucket>

    public init(perSecond: Int, burst: Int) {
        self.perSecond = Double(perSecond)
        self.burst = Double(max(burst, 1))
        self.bucket = Mutex(Bucket(tokens: Double(max(burst, 1)), updated: .now))
    }

    public func allow() -> Bool {
        guard perSecond > 0 else { return true }
        return bucket.withLock { bucket in
            let now = ContinuousClock.now
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated).seconds * perSecond)
            bucket.updated = now
            guard bucket.tokens >= 1 else { return false }
            bucket.tokens -= 1
            return true
        }
    }

    /// Takes a token even when none is left, and returns how long to wait before using
    /// it: zero while the burst lasts, then one `perSecond`th of a second apart.
    public func take() -> Duration {
        guard perSecond > 0 else { return .zero }
        return bucket.withLock { bucket in
            let now = ContinuousClock.now
            bucket.tokens = min(burst, bucket.tokens + (now - bucket.updated).seconds * perSecond) - 1
            bucket.updated = now
            return bucket.tokens >= 0 ? .zero : .seconds(-bucket.tokens / perSecond)
        }
    }
}
