import ParleyCore
import ParleyLive
import Testing

/// `FloodControl`: lines within the rate pass at once; lines over it wait, in order, and
/// none is dropped; past the hard bound the connection is to be closed.
@Suite struct FloodControlTests {
    let start = ContinuousClock.now

    /// Feeds `count` lines numbered from `first`, all at `now`; returns what was handled
    /// at once and the last arrival.
    func feed(
        _ flood: inout FloodControl<Int>, _ first: Int, count: Int, at now: ContinuousClock.Instant
    ) -> (handled: [Int], last: FloodControl<Int>.Arrival?) {
        var handled: [Int] = []
        var last: FloodControl<Int>.Arrival?
        for line in first..<(first + count) {
            let arrival = flood.arrive(line, bytes: 10, at: now)
            if case .handle(let line) = arrival { handled.append(line) }
            last = arrival
        }
        return (handled, last)
    }

    @Test func theBurstPassesAndTheRestWaitsInOrder() {
        var flood = FloodControl<Int>(limits: .init(perSecond: 10, burst: 20))
        let (handled, last) = feed(&flood, 0, count: 30, at: start)
        #expect(handled == Array(0..<20))
        #expect(flood.waiting == 10)
        guard case .held(let after, let warn) = last else {
            Issue.record("the 30th line should wait, not \(String(describing: last))")
            return
        }
        #expect(after == .milliseconds(100))
        #expect(!warn)
        // Half a second later five have earned their turn, oldest first.
        let (due, next) = flood.release(at: start + .milliseconds(500))
        #expect(due == Array(20..<25))
        #expect(next != nil)
        // A line that arrives meanwhile waits behind them, never before.
        if case .handle = flood.arrive(99, bytes: 10, at: start + .seconds(10)) {
            Issue.record("a line passed the ones waiting before it")
        }
        let (rest, done) = flood.release(at: start + .seconds(10))
        #expect(rest == Array(25..<30) + [99])
        #expect(done == nil)
        #expect(flood.waiting == 0)
    }

    @Test func aQuietSpellRefillsTheBurst() {
        var flood = FloodControl<Int>(limits: .init(perSecond: 10, burst: 20))
        _ = feed(&flood, 0, count: 20, at: start)
        let (handled, _) = feed(&flood, 20, count: 20, at: start + .seconds(2))
        #expect(handled.count == 20)
        let (capped, _) = feed(&flood, 40, count: 21, at: start + .seconds(60))
        #expect(capped.count == 20)
    }

    @Test func pastTheHardBoundTheConnectionEnds() {
        var flood = FloodControl<Int>(limits: .init(perSecond: 10, burst: 20, heldLines: 100))
        var warnings = 0
        var excess: Int?
        for line in 0..<200 {
            switch flood.arrive(line, bytes: 10, at: start) {
            case .held(_, true): warnings += 1
            case .excess where excess == nil: excess = line
            default: break
            }
        }
        // 20 pass, 100 wait, and the 101st waiting line is one too many.
        #expect(excess == 120)
        #expect(warnings == 1)
    }

    @Test func bytesCountTooWhateverTheLines() {
        var flood = FloodControl<Int>(limits: .init(perSecond: 1, burst: 1, heldLines: 100, heldBytes: 4096))
        #expect({ if case .handle = flood.arrive(0, bytes: 512, at: start) { true } else { false } }())
        var ended = false
        for line in 1...8 {
            if case .excess = flood.arrive(line, bytes: 512, at: start) { ended = true }
        }
        #expect(!ended)
        if case .excess = flood.arrive(9, bytes: 512, at: start) {} else { Issue.record("4,608 bytes waiting should end it") }
    }

    @Test func anEpisodeWarnsOnceAndTheNextWarnsAgain() {
        var flood = FloodControl<Int>(limits: .init(perSecond: 10, burst: 1, heldLines: 10))
        func warnings(from first: Int, at now: ContinuousClock.Instant) -> Int {
            var count = 0
            for line in first..<(first + 9) {
                if case .held(_, true) = flood.arrive(line, bytes: 1, at: now) { count += 1 }
            }
            return count
        }
        #expect(warnings(from: 0, at: start) == 1)
        // Drained one a tenth of a second (the burst is one), in order, to the end.
        var drained: [Int] = []
        var now = start
        var next: Duration? = .zero
        while let wait = next {
            now += wait
            let released = flood.release(at: now)
            drained += released.due
            next = released.next
        }
        #expect(drained == Array(1..<9))
        #expect(now - start >= .milliseconds(700))
        #expect(warnings(from: 100, at: now + .seconds(60)) == 1)
    }

    @Test func anAccountsConnectionsShareItsPace() {
        let pace = AccountPace(perSecond: 5, burst: 10)
        let alice = UserID(1)
        var first = FloodControl<Int>(limits: .init(perSecond: 100))
        var second = FloodControl<Int>(limits: .init(perSecond: 100))
        var other = FloodControl<Int>(limits: .init(perSecond: 100))
        first.account = (pace, alice)
        second.account = (pace, alice)
        other.account = (pace, UserID(2))
        // The first connection spends the account's burst; the second, well within its
        // own rate, waits for the account's.
        #expect(feed(&first, 0, count: 10, at: start).handled.count == 10)
        let (handled, last) = feed(&second, 100, count: 3, at: start)
        #expect(handled.isEmpty)
        guard case .held(let after, _) = last else {
            Issue.record("the second connection's line should wait, not \(String(describing: last))")
            return
        }
        #expect(after == .milliseconds(200))
        // Another account is not held up.
        #expect(feed(&other, 200, count: 10, at: start).handled.count == 10)
        // A second later the account has earned five: both connections' lines take them.
        let later = start + .seconds(1)
        #expect(second.release(at: later).due == [100, 101, 102])
        #expect(feed(&first, 10, count: 3, at: later).handled == [10, 11])
        #expect(pace.untilNextToken(for: alice) == .milliseconds(200))
        // Off, it holds nothing back.
        #expect(AccountPace(perSecond: 0).take(for: alice, at: start))
    }

    @Test func noRateMeansNoLimit() {
        var flood = FloodControl<Int>(limits: .init(perSecond: 0))
        let (handled, _) = feed(&flood, 0, count: 10_000, at: start)
        #expect(handled.count == 10_000)
    }
}
