import ParleyLive
import Testing

/// `DeliveryPace`: deliveries wait for a run only while sockets get enough of them an
/// interval for the wait to gather several into one write.
@Suite struct DeliveryPaceTests {
    let interval = Duration.milliseconds(1)
    let start = ContinuousClock.now

    /// Runs every `gap`, each carrying `each` deliveries to each of `sockets` sockets;
    /// returns the pace and the time of the last run.
    func pace(runs: Int, every gap: Duration, each: Int, sockets: Int = 20) -> (DeliveryPace, ContinuousClock.Instant) {
        var pace = DeliveryPace(interval: interval)
        var now = start
        for _ in 0..<runs {
            now += gap
            pace.ran(at: now, deliveries: each * sockets, sockets: sockets)
        }
        return (pace, now)
    }

    @Test func aQuietGroupWaitsForNothing() {
        // A message every 2 ms, one delivery a socket each: half a delivery an interval.
        let (quiet, now) = pace(runs: 50, every: .milliseconds(2), each: 1)
        #expect(!quiet.isPacing)
        #expect(quiet.wait(at: now) == .zero)
        #expect(quiet.wait(at: now + .microseconds(10)) == .zero)
        // A message every millisecond is still one delivery a socket an interval.
        let (steady, then) = pace(runs: 50, every: .milliseconds(1), each: 1)
        #expect(!steady.isPacing)
        #expect(steady.wait(at: then + .microseconds(10)) == .zero)
    }

    @Test func aBusyGroupIsPacedAtMostOneRunAnInterval() {
        // Ten deliveries a socket an interval: paced, and a run right after the last
        // waits for the interval (the burst of one is used), but no longer.
        var (busy, now) = pace(runs: 20, every: .milliseconds(1), each: 10)
        #expect(busy.isPacing)
        #expect(abs(busy.rate - 10) < 0.01)
        busy.ran(at: now + .microseconds(10), deliveries: 200, sockets: 20)
        now += .microseconds(20)
        let wait = busy.wait(at: now)
        #expect(wait > .zero)
        #expect(wait <= interval)
        // After a quiet spell the first run goes at once, as before pacing.
        #expect(busy.wait(at: now + .milliseconds(50)) == .zero)
    }

    @Test func aWriterMayPaceWhateverTheTraffic() {
        // The IRC gateway's: from the first run, a run right after two others waits.
        var always = DeliveryPace(interval: interval, pacedFrom: 0)
        #expect(always.isPacing)
        always.ran(at: start)
        always.ran(at: start + .microseconds(10))
        let wait = always.wait(at: start + .microseconds(20))
        #expect(wait > .zero)
        #expect(wait <= interval)
        // The same quiet runs under the default threshold wait for nothing.
        var quiet = DeliveryPace(interval: interval)
        quiet.ran(at: start, deliveries: 1, sockets: 1)
        quiet.ran(at: start + .milliseconds(5), deliveries: 1, sockets: 1)
        #expect(quiet.wait(at: start + .milliseconds(5) + .microseconds(10)) == .zero)
    }

    @Test func theRateIsTheTrafficsNotThePacesOwn() {
        // The same traffic counted in runs twice as far apart, each carrying twice as
        // much, is the same rate: holding runs back does not make the traffic look busier.
        let (often, _) = pace(runs: 40, every: .microseconds(500), each: 1)
        let (seldom, _) = pace(runs: 30, every: .milliseconds(1), each: 2)
        #expect(abs(often.rate - 2) < 0.001)
        #expect(abs(seldom.rate - 2) < 0.001)
        #expect(often.isPacing && seldom.isPacing)
    }

    @Test func runsTooCloseTogetherOrEmptyDoNotMakeARate() {
        var pace = DeliveryPace(interval: interval)
        pace.ran(at: start, deliveries: 1, sockets: 1)
        // A run at the same instant counts as a thousandth of an interval later: a
        // burst, paced, and no division by zero.
        pace.ran(at: start, deliveries: 1, sockets: 1)
        #expect(pace.isPacing)
        #expect(pace.rate <= 1_000 + 1e-6)
        // Nothing written, no sockets, or a count past any real one: no trap.
        pace.ran(at: start + .milliseconds(1), deliveries: 0, sockets: 0)
        pace.ran(at: start + .milliseconds(2), deliveries: Int.max, sockets: 1)
        #expect(pace.rate.isFinite)
        // Without an interval nothing is ever held back.
        var unpaced = DeliveryPace(interval: .zero)
        for step in 1...10 { unpaced.ran(at: start + .microseconds(step), deliveries: 1_000, sockets: 1) }
        #expect(!unpaced.isPacing)
        #expect(unpaced.wait(at: start + .microseconds(11)) == .zero)
    }
}
