public import ParleyCore

/// Flood control for one connection, as IRC servers do it ("fakelag"): a client within
/// its rate has each line handled as it comes; one over it has its lines wait, in order,
/// and handed on one a `1/perSecond` of a second as its allowance refills; one that goes
/// on until `heldLines` lines (or `heldBytes` bytes) wait is past the hard bound and is
/// to be disconnected. No line is dropped: a line is handled, in order, or the
/// connection ends.
///
/// What a waiting line costs the server is its bytes and a place in an array: no work is
/// done for it until its turn, so a flooder costs others the CPU of reading its lines,
/// and nothing of handling them faster than its rate.
///
/// ```swift
/// var flood = FloodControl<String>(limits: .init(perSecond: 10))
/// switch flood.arrive("PING x", bytes: 6, at: .now) {
/// case .handle(let line): handle(line)
/// case .held(let after, let warn): scheduleRelease(after); if warn { tellTheClient() }
/// case .excess: disconnect("Excess Flood")
/// }
/// ```
public struct FloodControl<Line> {
    public struct Limits: Sendable, Hashable {
        /// Lines a second once the burst is spent (0: no limit).
        public var perSecond: Int
        /// Lines that pass at once after a quiet spell.
        public var burst: Int
        /// Waiting lines past which the connection is over the hard bound.
        public var heldLines: Int
        /// Waiting bytes past which it is, whatever the count.
        public var heldBytes: Int

        /// The defaults: a burst of twice the rate; 100 lines or 64 KiB waiting at most.
        public init(perSecond: Int, burst: Int? = nil, heldLines: Int = 100, heldBytes: Int = 64 << 10) {
            self.perSecond = max(0, perSecond)
            self.burst = max(1, burst ?? perSecond.multipliedReportingOverflow(by: 2).partialValue)
            self.heldLines = max(1, heldLines)
            self.heldBytes = max(1, heldBytes)
        }
    }

    /// What becomes of a line that arrives.
    public enum Arrival {
        /// Within the rate: handle it now.
        case handle(Line)
        /// Over it: the line waits. `release` is due `after` from now; `warn` is true for
        /// the first line of an episode to pass half the hard bound (tell the client once).
        case held(after: Duration, warn: Bool)
        /// Past the hard bound: the connection is to be closed ("Excess Flood").
        case excess
    }

    public private(set) var limits: Limits
    /// The account's pace, shared with its other connections, once this one has signed
    /// in: a line passes when both this connection and the account have a token.
    public var account: (pace: AccountPace, user: UserID)?
    private var allowance: TokenAllowance
    private var held: [(line: Line, bytes: Int)] = []
    /// Index of the first line still waiting in `held` (taken lines are dropped in bulk).
    private var head = 0
    private var waitingBytes = 0
    private var warned = false

    public init(limits: Limits) {
        self.limits = limits
        allowance = TokenAllowance(perSecond: limits.perSecond, burst: limits.burst)
    }

    /// Takes new limits (a reload of the server's settings): the lines waiting stay, and
    /// the allowance starts full at the new rate.
    public mutating func change(to limits: Limits) {
        guard limits != self.limits else { return }
        self.limits = limits
        allowance = TokenAllowance(perSecond: limits.perSecond, burst: limits.burst)
    }

    /// Lines waiting their turn.
    public var waiting: Int { held.count - head }

    /// Takes a line that arrived `at` (a line of `bytes` bytes).
    public mutating func arrive(_ line: Line, bytes: Int, at now: ContinuousClock.Instant) -> Arrival {
        guard limits.perSecond > 0 else { return .handle(line) }
        if waiting == 0 && takeToken(at: now) { return .handle(line) }
        held.append((line, bytes))
        waitingBytes = waitingBytes.addingReportingOverflow(max(0, bytes)).partialValue
        if waiting > limits.heldLines || waitingBytes > limits.heldBytes || waitingBytes < 0 { return .excess }
        let warn = !warned && (waiting * 2 > limits.heldLines || waitingBytes * 2 > limits.heldBytes)
        if warn { warned = true }
        return .held(after: untilNextToken, warn: warn)
    }

    /// The waiting lines whose turn has come by `now`, in order, and how long until the
    /// next one's (nil once none waits: the episode is over).
    public mutating func release(at now: ContinuousClock.Instant) -> (due: [Line], next: Duration?) {
        var due: [Line] = []
        while waiting > 0 && takeToken(at: now) {
            let (line, bytes) = held[head]
            due.append(line)
            waitingBytes -= bytes
            head += 1
        }
        if waiting == 0 {
            held.removeAll(keepingCapacity: false)
            head = 0
            waitingBytes = 0
            warned = false
            return (due, nil)
        }
        if head > 32 && head * 2 > held.count {
            held.removeFirst(head)
            head = 0
        }
        return (due, untilNextToken)
    }

    /// A token from the connection and, once signed in, one from its account.
    private mutating func takeToken(at now: ContinuousClock.Instant) -> Bool {
        allowance.refill(at: now)
        guard allowance.tokens >= 1 else { return false }
        if let account, !account.pace.take(for: account.user, at: now) { return false }
        return allowance.take(at: now)
    }

    /// Until both have a token (at least a millisecond: another connection of the
    /// account may have taken the one that was there).
    private var untilNextToken: Duration {
        let connection = allowance.untilNextToken
        guard let account else { return connection }
        return max(connection, account.pace.untilNextToken(for: account.user), .milliseconds(1))
    }
}
