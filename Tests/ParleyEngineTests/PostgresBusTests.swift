import Foundation
import Logging
import ParleyCore
import ParleyEngine
import ParleyLive
import ParleyPostgres
import ParleyStore
import ParleyTesting
import Testing

/// The event bus between nodes on PostgreSQL: two engines, each with its own pool and
/// bus, on one database, as two `parley serve` nodes would be.
@Suite(.timeLimit(.minutes(10))) struct PostgresBusTests {
    final class Node: Sendable {
        let engine: ChatEngine
        let store: PostgresChatStore
        let bus: PostgresEventBus
        private let tasks: [Task<Void, Never>]

        init(_ url: String) async throws {
            var logger = Logger(label: "parley.test.bus")
            logger.logLevel = .error
            let location = try PostgresLocation(url: url)
            try await PostgresChatStore.prepare(location, logger: logger)
            let store = PostgresChatStore(location: location, connections: 8, logger: logger)
            self.store = store
            let storeTask = Task { await store.run() }
            bus = try await PostgresEventBus.open(store: store, logger: logger)
            let bus = bus
            tasks = [storeTask, Task { await bus.run() }]
            var configuration = ChatEngine.Configuration()
            configuration.bcryptCost = 4
            configuration.membersChangeElsewhere = true
            engine = ChatEngine(store: store, bus: bus, configuration: configuration)
        }

        deinit { for task in tasks { task.cancel() } }

        func signUp(_ name: String) async throws -> (EngineSession, SignedIn) {
            let session = engine.connect()
            let signedIn = try await session.register(
                Registration(email: "\(name)@example.com", password: TestWorld.password(of: name), handle: name))
            return (session, signedIn)
        }

        func signIn(_ name: String) async throws -> EngineSession {
            let session = engine.connect()
            _ = try await session.signIn(login: "@\(name)", password: TestWorld.password(of: name))
            return session
        }

        /// A session signed in with `token` that hands its events, with their positions,
        /// to `log`; it lives as long as the caller keeps it.
        func watch(
            _ token: String, after: EventPosition? = nil, into log: Shared<[PositionedEvent]>
        ) async throws -> (session: EngineSession, complete: Bool) {
            let session = engine.connect(address: "test") { event in log.withLock { $0.append(event) } }
            return (session, try await session.resume(token: token, after: after).complete)
        }
    }

    static func messages(_ log: Shared<[PositionedEvent]>) -> [(position: UInt64, message: Message)] {
        log.withLock { events in
            events.compactMap { if case .message(let event) = $0.event { ($0.position, event.message) } else { nil } }
        }
    }

    static func wait(for count: Int, in log: Shared<[PositionedEvent]>) async {
        let deadline = ContinuousClock.now + .seconds(120)
        while messages(log).count < count, ContinuousClock.now < deadline, await pause(.milliseconds(10)) {}
    }

    /// Writers on both nodes at once: positions come from one sequence but commit in
    /// any order unless the bus keeps them in order. A reader on each node must see
    /// every message once, positions rising; one that resumes on the other node from a
    /// position halfway gets exactly the rest.
    @Test func concurrentWritersOnTwoNodesAreReadInOrderOnceAndResumeOnEitherNode() async throws {
        let url = try TestPostgres.newDatabase()
        let a = try await Node(url)
        let b = try await Node(url)
        let (owner, _) = try await a.signUp("owner")
        let group = try await owner.createGroup(handle: "busy", title: nil, isPublic: true)
        var senders: [EngineSession] = []
        for index in 0..<6 {
            let (session, _) = try await (index % 2 == 0 ? a : b).signUp("sender\(index)")
            _ = try await session.joinGroup(handle: "busy")
            senders.append(session)
        }
        let (watcher, watcherIn) = try await b.signUp("watcher")
        _ = try await watcher.joinGroup(handle: "busy")
        let onB = Shared<[PositionedEvent]>([])
        let onA = Shared<[PositionedEvent]>([])
        let watchers = [try await b.watch(watcherIn.token, into: onB), try await a.watch(watcherIn.token, into: onA)]
        #expect(watchers.allSatisfy { $0.complete })

        let perSender = 40
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (index, sender) in senders.enumerated() {
                tasks.addTask {
                    for number in 0..<perSender {
                        _ = try await sender.sendMessage(to: .chat(group.id), text: "s\(index) m\(number)", clientID: "s\(index)-\(number)")
                    }
                }
            }
            try await tasks.waitForAll()
        }
        let total = senders.count * perSender
        for log in [onA, onB] {
            await Self.wait(for: total, in: log)
            let received = Self.messages(log)
            #expect(received.count == total)
            #expect(Set(received.map(\.message.id)).count == total, "each message once")
            #expect(zip(received, received.dropFirst()).allSatisfy { $0.position < $1.position }, "positions rise")
            for index in senders.indices {
                let own = received.filter { $0.message.clientID?.hasPrefix("s\(index)-") == true }.map(\.message.seq)
                #expect(own == own.sorted(), "each sender's messages in the order sent")
            }
        }

        // Resuming on A from halfway through what B delivered: exactly the rest, in order.
        let delivered = Self.messages(onB)
        try #require(delivered.count == total)
        let halfway = delivered[total / 2 - 1].position
        let resumed = Shared<[PositionedEvent]>([])
        let resuming = try await a.watch(
            watcherIn.token, after: EventPosition(epoch: a.engine.eventEpoch, position: halfway), into: resumed)
        #expect(resuming.complete)
        await Self.wait(for: total - total / 2, in: resumed)
        #expect(Self.messages(resumed).map(\.message.id) == delivered.dropFirst(total / 2).map(\.message.id))
        #expect(a.engine.eventEpoch == b.engine.eventEpoch, "positions are the database's, the same on every node")
        for watcher in watchers + [resuming] { await watcher.session.close() }
    }

    /// A send stored whose node died before its event went out, retried by the client on
    /// the other node and once more on the first: the members get its event once.
    @Test func aRetriedSendIsAnnouncedOnceWhetherOrNotTheFirstAttemptWas() async throws {
        let url = try TestPostgres.newDatabase()
        let a = try await Node(url)
        let b = try await Node(url)
        let (alice, _) = try await a.signUp("alice")
        let group = try await alice.createGroup(handle: "retries", title: nil, isPublic: true)
        let (bob, bobIn) = try await b.signUp("bob")
        _ = try await bob.joinGroup(handle: "retries")
        let log = Shared<[PositionedEvent]>([])
        let watcher = try await b.watch(bobIn.token, into: log)

        // Stored, and nothing more: as if node A died right after the commit.
        let me = try await alice.me()
        let first = try await a.store.append(
            NewMessage(chatID: group.id, sender: me.ref, kind: .text, text: "stored, never told", clientID: "retry-1", sentAt: Date()))
        #expect(first.created)
        let retried = try await b.signIn("alice").sendMessage(to: .chat(group.id), text: "stored, never told", clientID: "retry-1")
        let again = try await alice.sendMessage(to: .chat(group.id), text: "stored, never told", clientID: "retry-1")
        #expect(retried.id == first.message.id && again.id == first.message.id)
        let after = try await alice.sendMessage(to: .chat(group.id), text: "after", clientID: "retry-2")
        await Self.wait(for: 2, in: log)
        let received = Self.messages(log).map(\.message.id)
        #expect(received == [first.message.id, after.id], "the retried message once, then the next")
        await watcher.session.close()
    }

    /// A node whose LISTEN connection is cut misses the notifications meanwhile, and
    /// still delivers every event: it reconnects and reads on from the table.
    @Test func aNodeThatLosesItsListeningConnectionCatchesUpFromTheTable() async throws {
        let url = try TestPostgres.newDatabase()
        let a = try await Node(url)
        let b = try await Node(url)
        let (alice, _) = try await a.signUp("alice")
        let group = try await alice.createGroup(handle: "cut", title: nil, isPublic: true)
        let (bob, bobIn) = try await b.signUp("bob")
        _ = try await bob.joinGroup(handle: "cut")
        let log = Shared<[PositionedEvent]>([])
        let watcher = try await b.watch(bobIn.token, into: log)
        let before = try await alice.sendMessage(to: .chat(group.id), text: "before the cut", clientID: nil)
        await Self.wait(for: 1, in: log)

        // Every LISTEN connection of the database ends, as in a network cut.
        let postgres = try TestPostgres.shared()
        let database = String(url.split(separator: "/").last ?? "")
        let cut = try postgres.tool(
            "psql",
            [
                "-h", "127.0.0.1", "-p", String(postgres.port), "-U", postgres.user, "-d", database, "-tAc",
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
            ])
        #expect((Int(cut.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 1, "a listening connection was cut")
        var sent: [MessageID] = [before.id]
        for number in 0..<5 { sent.append(try await alice.sendMessage(to: .chat(group.id), text: "after \(number)", clientID: nil).id) }
        await Self.wait(for: sent.count, in: log)
        #expect(Self.messages(log).map(\.message.id) == sent)
        await watcher.session.close()
    }
}
