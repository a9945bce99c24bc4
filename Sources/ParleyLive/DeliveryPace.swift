/// When a server's writer of deliveries (a loop's WebSocket events, its IRC lines) runs
/// next. Holding deliveries back lets each socket's write carry several, which is most of
/// what a busy group costs; it pays only when more are coming for the same sockets while
/// a run waits, and otherwise only adds the wait.
///
/// So the pace watches the traffic: how many deliveries each socket gets in an interval,
/// from each run's deliveries and the time since the run before, both smoothed over runs
/// (their ratio, not an average of each run's own: two runs close together would count as
/// a burst they were not). From `pacedFrom` a socket an interval, runs average at most one
/// an interval, and one may come an interval early (a cell-rate limit with a burst of
/// one). Below it every run goes at once: a group that hears a message every few
/// milliseconds, or one whose members each get about one message an interval, waits for
/// nothing.
///
/// The count is the traffic's, not the pace's: a run held back an interval carries twice
/// what two runs half an interval apart would, so what the pace decides does not feed
/// back into what it measures.
public struct DeliveryPace: Sendable {
    /// Deliveries a socket an interval from which runs are paced, unless a writer says.
    public static let worthPacing = 1.5
    /// Each run moves the smoothed figures by this share.
    static let weight = 0.25
    /// A quiet spell counts as this many intervals at most, so that traffic that starts
    /// again is seen within a few runs.
    static let longestSpan = 8.0
    /// Runs closer together than this share of an interval count as this far apart.
    static let shortestSpan = 0.001

    public let interval: Duration
    /// Deliveries a socket an interval from which runs are paced.
    public let pacedFrom: Double
    /// Deliveries a socket a run, and intervals between runs, smoothed.
    private var perRun = 0.0
    private var span = 0.0
    private var lastRun: ContinuousClock.Instant?
    /// When the next run is due if runs are an interval apart; a paced run may start up
    /// to an interval before it.
    private var due: ContinuousClock.Instant?

    /// - Parameter pacedFrom: 0 paces every run whatever the traffic.
    public init(interval: Duration, pacedFrom: Double = Self.worthPacing) {
        self.interval = interval
        self.pacedFrom = max(0, pacedFrom)
    }

    /// Deliveries a socket an interval, as the traffic has lately been.
    public var rate: Double { span > 0 ? perRun / span : 0 }

    /// Whether runs are held back now.
    public var isPacing: Bool { interval > .zero && rate >= pacedFrom }

    /// How long a run wanted at `now` waits.
    public func wait(at now: ContinuousClock.Instant) -> Duration {
        guard isPacing, let due else { return .zero }
        return max(.zero, due - interval - now)
    }

    /// A run at `now` wrote `deliveries` to `sockets` sockets.
    public mutating func ran(at now: ContinuousClock.Instant, deliveries: Int, sockets: Int) {
        if interval > .zero, let lastRun, deliveries > 0, sockets > 0 {
            let intervals = min(max((now - lastRun) / interval, Self.shortestSpan), Self.longestSpan)
            perRun += (Double(deliveries) / Double(sockets) - perRun) * Self.weight
            span += (intervals - span) * Self.weight
        }
        ran(at: now)
    }

    /// A run at `now`, its deliveries not counted: for a writer that paces every run
    /// (`pacedFrom` 0), which the traffic does not change.
    public mutating func ran(at now: ContinuousClock.Instant) {
        lastRun = now
        due = max(due ?? now, now) + interval
    }
}
