import Foundation
import ParleyCore
import Synchronization

/// How many password guesses and sign-ups a server allows before it answers
/// `rate_limited`, so that guessing is slow and nobody can aim the limits at the owner:
/// - failed sign-ins to one account from one address: `failuresPerAccount` a window,
///   then that address may not try that account until the window ends;
/// - failed sign-ins from one address to any accounts: `failuresPerAddress` a window;
/// - failed sign-ins to one account from anywhere: `failuresPerAccountPerDay` a day; past
///   it, an address that has failed on the account that day may not try it again, and any
///   other address gets its sign-in checked: the right password still signs in, a wrong
///   one makes that address one that has failed.
///
/// The right password is never refused from an address that has not failed on the
/// account (docs/server.md, "Sign-in limits"). Registrations are counted per address.
///
/// ```swift
/// configuration.signInLimits = SignInLimits(failuresPerAccount: 10, failuresPerAddress: 50, registrationsPerAddress: 20)
/// ```
public struct SignInLimits: Sendable {
    public var failuresPerAccount: Int
    public var failuresPerAddress: Int
    public var failuresPerAccountPerDay: Int
    /// Accounts one address may create per window; 0: no limit.
    public var registrationsPerAddress: Int
    /// Groups one user may create in an hour; 0: no limit.
    public var groupsPerUserPerHour = 30
    public var window: Duration
    /// The span of `failuresPerAccountPerDay`.
    public var day: Duration

    public init(
        failuresPerAccount: Int = 10, failuresPerAddress: Int = 50, failuresPerAccountPerDay: Int = 100,
        registrationsPerAddress: Int = 20, window: Duration = .seconds(15 * 60), day: Duration = .seconds(24 * 3600)
    ) {
        self.failuresPerAccount = failuresPerAccount
        self.failuresPerAddress = failuresPerAddress
        self.failuresPerAccountPerDay = failuresPerAccountPerDay
        self.registrationsPerAddress = registrationsPerAddress
        self.window = window
        self.day = day
    }
}

/// The counts behind `SignInLimits`, in memory: a restart forgives, which costs an
/// attacker a restart per window. At most `maxKeys` counters are kept; past that the
/// expired ones go first, then the oldest.
final class SignInThrottle: Sendable {
    private struct Count {
        var value: Int
        var started: Date
        var span: TimeInterval
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
        guard count(key, now: now) < limit else {
            throw ParleyError(.rateLimited, "too many \(what); try again in \(Int(limits.window.seconds / 60)) minutes")
        }
    }

    /// How many times `key` was recorded in its current span.
    func count(_ key: String, now: Date) -> Int {
        counts.withLock { counts -> Int in
            guard let count = counts[key], now.timeIntervalSince(count.started) < count.span else { return 0 }
            return count.value
        }
    }

    /// Counts one for `key`, in spans of `span` (nil: the window).
    func record(_ key: String, now: Date, span: Duration? = nil) {
        let span = (span ?? limits.window).seconds
        counts.withLock { counts in
            if var count = counts[key], now.timeIntervalSince(count.started) < count.span {
                count.value += 1
                counts[key] = count
                return
            }
            if counts.count >= Self.maxKeys { Self.evict(&counts, now: now) }
            counts[key] = Count(value: 1, started: now, span: span)
        }
    }

    func forget(_ key: String) {
        _ = counts.withLock { $0.removeValue(forKey: key) }
    }

    private static func evict(_ counts: inout [String: Count], now: Date) {
        counts = counts.filter { now.timeIntervalSince($0.value.started) < $0.value.span }
        guard counts.count >= maxKeys else { return }
        let oldest = counts.sorted { $0.value.started < $1.value.started }.prefix(counts.count / 2).map(\.key)
        for key in oldest { counts[key] = nil }
    }
}
