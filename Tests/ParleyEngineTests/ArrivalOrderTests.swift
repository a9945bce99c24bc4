import ParleyEngine
import Synchronization
import Testing

/// `ArrivalOrder`: a line waits for every line that arrived before it, whichever
/// finishes first, and for nothing that arrived after it.
@Suite struct ArrivalOrderTests {
    @Test func aLineWaitsForEveryEarlierLineAndNoLaterOne() async {
        let order = ArrivalOrder()
        // Until enabled (by the IRC gateway), nothing is numbered and nothing waits.
        #expect(order.arrive() == 0)
        await order.earlierFinished(order.arrive())
        order.enable()
        let first = order.arrive()
        let second = order.arrive()
        let ping = order.arrive()
        let later = order.arrive()
        let log = Mutex<[String]>([])
        let waiting = Task {
            await order.earlierFinished(ping)
            log.withLock { $0.append("ping") }
        }
        // Out of order: the second line finishes before the first.
        log.withLock { $0.append("second") }
        order.finish(second)
        log.withLock { $0.append("first") }
        order.finish(first)
        await waiting.value
        #expect(log.withLock { $0 } == ["second", "first", "ping"])
        // A line after the ping does not hold it back, and one before it all is done.
        await order.earlierFinished(ping)
        order.finish(ping)
        await order.earlierFinished(later)
        order.finish(later)
        await order.earlierFinished(order.arrive())
    }
}
