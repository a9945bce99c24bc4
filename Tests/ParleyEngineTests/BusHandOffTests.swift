import Foundation
import ParleyCore
import ParleyEngine
import ParleyLive
import ParleyTesting
import Synchronization
import Testing

/// The in-process bus hands each event to its subscribers' queues under its lock and
/// delivers off it: a delivery may ask the bus (a delivery made under the lock could
/// never return from that), and each subscription still gets its user's events once, in
/// position order, however many publish at once.
@Suite struct BusHandOffTests {
    let ann = UserRef(id: UserID(1), handle: "ann", displayName: "Ann")

    func typing() -> ChatEvent { .typing(Typing(chatID: ChatID(1), user: ann)) }

    @Test func aDeliveryMayAskTheBusAndUnsubscribeItself() async throws {
        let bus = InProcessEventBus()
        let seen = Mutex<[(position: UInt64, busAt: UInt64)]>([])
        let subscription = Mutex<SubscriptionID?>(nil)
        let (id, _) = await bus.subscribe(UserID(1), tokenHash: nil, after: nil) { event in
            // Both take the bus's lock.
            seen.withLock { $0.append((event.position, bus.position)) }
            if event.position == 3, let id = subscription.withLock({ $0 }) { bus.unsubscribe(id) }
        }
        subscription.withLock { $0 = id }
        for _ in 1...5 { await bus.publish(typing(), to: [UserID(1)], except: nil) }
        let delivered = seen.withLock { $0 }
        #expect(delivered.map(\.position) == [1, 2, 3], "none after it unsubscribed from its own delivery")
        #expect(delivered.allSatisfy { $0.busAt >= $0.position })
        #expect(bus.position == 5)
    }

    @Test func eachSubscriptionGetsEveryEventOnceInOrderWhileManyPublish() async throws {
        let bus = InProcessEventBus()
        let (publishers, each) = (8, 200)
        let logs = (0..<3).map { _ in PositionLog() }
        for log in logs {
            _ = await bus.subscribe(UserID(1), tokenHash: nil, after: nil) { event in log.positions.withLock { $0.append(event.position) } }
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<publishers {
                group.addTask { [bus] in
                    for _ in 0..<each { await bus.publish(.typing(Typing(chatID: ChatID(1), user: ann)), to: [UserID(1)], except: nil) }
                }
            }
        }
        // Every publish has returned; a queue another publisher was emptying may still
        // be going: the last event comes last, so wait for it.
        let total = UInt64(publishers * each)
        for log in logs {
            #expect(await eventually { log.positions.withLock { $0.last } == total })
            let positions = log.positions.withLock { $0 }
            #expect(positions == Array(1...total), "once each, in order")
        }
    }

}

/// What one subscription was delivered.
private final class PositionLog: Sendable {
    let positions = Mutex<[UInt64]>([])
}
