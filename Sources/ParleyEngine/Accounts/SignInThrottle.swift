import Foundation
import ParleyCore
import Synchronization

/// How many password guesses and sign-ups a server allows before it answers
/// `rate_limited`: failed sign-ins are counted per account and per client address,
/// registrations per address, each in a fixed window.
///
/// ```swift
/// configuration.signInLimits = SignInLimits(failuresPerAccount: 10, failuresPerAddress: 50, registrationsPerAddress: 20)
/// ```
public struct SignInLimits: Sendable {
    public var failuresPerAccount: Int
    public var failuresPerAddress: Int
    /// Accounts one address may create per window; 0: no limit.
    public var registrationsPerAddress: Int
    public var window: Duration

    public init(
        failuresPerAccount: Int = 10, failuresPerAddress: Int = 50, registrationsPerAddress: Int = 20,
        window: Duration = .seconds(15 * 60)
    ) {
        self.failuresPerAccount = failuresPerAccount
        self.failuresPerAddress = failuresPerAddress
        self.registrationsPerAddress = registrationsPerAddress
        self.window = window
    }
}

/// The counts behind `SignInLimits`, in memory: a restart forgives, which costs an
/// attacker a restart per window. At most `maxKeys` counters are kept; past that the
/// expired ones go first, then the oldest.
final class SignInThrottle: Sendable {
    private struct Count {
        var value: Int
        var started: Date
    }

    static let maxKeys = 100_000

    let limits: SignInLimits
    private let counts = Mutex([String: Count]())

    init(limits: SignInLimits) {
        self.limits = limits
    }

    /// Refuses with `rate_limited` when `key` has reached `limit` in the current window.
    func check(_ key: String, limit: Int, now: Date, what: String) throws(ParleyError) {
        guard limit > 0 else { return }
        let count = counts.withLock { counts -> Int in
            guard let count = counts[key], now.timeIntervalSince(count.started) < limits.window.seconds else { return 0 }
            return count.value
        }
        guard count < limit else {
            throw ParleyError(.rateLimited, "too many \(what); try again in \(Int(limits.window.seconds / 60)) minutes")
        }
    }

    func record(_ key: String, now: Date) {
        counts.withLock { counts in
            if var count = counts[key], now.timeIntervalSince(count.started) < limits.window.seconds {
                count.value += 1
                counts[key] = count
                return
            }
            if counts.count >= Self.maxKeys { Self.evict(&counts, now: now, window: limits.window.seconds) }
            counts[key] = Count(value: 1, started: now)
        }
    }

    func forget(_ key: String) {
        _ = counts.withLock { $0.removeValue(forKey: key) }
    }

    private static func evict(_ counts: inout [String: Count], now: Date, window: TimeInterval) {
        counts = counts.filter { now.timeIntervalSince($0.value.started) < window }
        guard counts.count >= maxKeys else { return }
        let oldest = counts.sorted { $0.value.started < $1.value.started }.prefix(counts.count / 2).map(\.key)
        for key in oldest { counts[key] = nil }
    }
}
