import Foundation
import ParleyCore
import ParleyEngine
import ParleyLive
import ParleySQLite
import ParleyTesting
import Synchronization
import Testing

/// The in-process bus over a journal (as `parley serve` runs it on SQLite): a message's
/// position is taken when the store writes it, so positions can reach the bus out of
/// order; every session still sees them in order, and a position that names nothing
/// holds nothing up.
@Suite struct EventJournalBusTests {
    /// A journal as the store keeps one: ten events from before this process, for `user`.
    final class Journal: EventJournal {
        struct State {
            var next: UInt64 = 10
            var taken: [MessageID: UInt64] = [:]
            var abandoned: (@Sendable ([UInt64]) -> Void)?
            var recorded: [UInt64] = []
        }
        let epoch = "journal"
        let newestAtOpen: UInt64 = 10
        let prunedThrough: UInt64 = 3
        let state = Mutex(State())
        let user: UserID

        init(user: UserID) { self.user = user }

        func takePosition() -> UInt64 {
            state.withLock {
                $0.next += 1
                return $0.next
            }
        }
        func takenPosition(of message: MessageID) -> UInt64? { state.withLock { $0.taken.removeValue(forKey: message) } }
        func onAbandoned(_ abandoned: @escaping @Sendable ([UInt64]) -> Void) { state.withLock { $0.abandoned = abandoned } }
        func record(_ event: PositionedEvent, recipients: [UserID]) { state.withLock { $0.recorded.append(event.position) } }
        func events(of user: UserID, after: UInt64, through: UInt64, limit: Int) async throws -> (events: [PositionedEvent], more: Bool) {
            guard user == self.user else { return ([], false) }
            let kept = (after + 1...through).map {
                EventBusFixtures.positioned(.chatDeleted(ChatDeleted(chatID: ChatID(Int64($0)))), at: $0)
            }
            return (Array(kept.suffix(limit)), kept.count > limit)
        }

        /// What the store does when it writes a message: takes its event's position.
        func store(_ message: MessageID) -> UInt64 {
            let position = takePosition()
            state.withLock { $0.taken[message] = position }
            return position
        }

        /// What the store does when the transaction rolls back.
        func rollBack(_ positions: [UInt64]) { state.withLock { $0.abandoned }?(positions) }
    }

    @Test func eventsArriveInPositionOrderWhateverOrderTheyArePublishedIn() async throws {
        let user = UserID(1)
        let journal = Journal(user: user)
        let bus = InProcessEventBus(journal: journal)
        let seen = Shared<[UInt64]>([])
        _ = await bus.subscribe(user, tokenHash: nil, after: nil) { event in seen.withLock { $0.append(event.position) } }

        let first = journal.store(MessageID(1))
        let second = journal.store(MessageID(2))
        #expect((first, second) == (11, 12))
        // A read marker after both: it waits for their events.
        await bus.publish(.chatDeleted(ChatDeleted(chatID: ChatID(7))), to: [user], except: nil)
        await bus.publish(EventBusFixtures.message(2), to: [user], except: nil)
        #expect(seen.withLock { $0 }.isEmpty)
        await bus.publish(EventBusFixtures.message(1), to: [user], except: nil)
        #expect(seen.withLock { $0 } == [11, 12, 13])
        #expect(bus.position == 13)

        // A stored message whose chat went before it was announced, and a rolled-back
        // transaction: their positions name nothing and hold nothing up.
        _ = journal.store(MessageID(3))
        let rolledBack = journal.store(MessageID(4))
        await bus.publish(.chatDeleted(ChatDeleted(chatID: ChatID(8))), to: [user], except: nil)
        #expect(seen.withLock { $0 } == [11, 12, 13])
        bus.abandon(MessageID(3))
        #expect(seen.withLock { $0 } == [11, 12, 13])
        journal.rollBack([rolledBack])
        #expect(seen.withLock { $0 } == [11, 12, 13, 16])

        // The store keeps messages' events itself; the bus records the others, not
        // presence or typing.
        await bus.publish(
            .typing(Typing(chatID: ChatID(7), user: UserRef(id: user, handle: "u", displayName: "u"))), to: [user], except: nil)
        #expect(journal.state.withLock { $0.recorded } == [13, 16])
    }

    @Test func aResumeFromBeforeTheProcessReadsTheJournalThenTheBacklog() async throws {
        let user = UserID(1)
        let journal = Journal(user: user)
        let bus = InProcessEventBus(journal: journal)
        #expect(bus.epoch == "journal")
        await bus.publish(.chatDeleted(ChatDeleted(chatID: ChatID(7))), to: [user], except: nil)

        let replayed = Shared<[UInt64]>([])
        let resumed = await bus.subscribe(user, tokenHash: nil, after: EventPosition(epoch: "journal", position: 5)) { event in
            replayed.withLock { $0.append(event.position) }
        }
        #expect(resumed.complete)
        #expect(replayed.withLock { $0 } == [6, 7, 8, 9, 10, 11])

        // From before what the journal still keeps: some may be gone, and it says so.
        let early = await bus.subscribe(user, tokenHash: nil, after: EventPosition(epoch: "journal", position: 2)) { _ in }
        #expect(!early.complete)
        // Another database's positions mean nothing here.
        let elsewhere = await bus.subscribe(user, tokenHash: nil, after: EventPosition(epoch: "other", position: 11)) { _ in }
        #expect(!elsewhere.complete)
    }
}

/// SQLite's journal: a position once handed out is never handed out again, though most
/// are never written (presence, typing): a client that saw one must not miss what the
/// server publishes after a restart under the same number.
@Suite struct SQLiteEventJournalTests {
    @Test func aPositionHandedOutIsNeverHandedOutAgainAfterARestart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("parley.sqlite").path
        let codec = SQLiteEventJournal.Codec(encode: { _ in nil }, decode: { _ in nil })

        let first = try SQLiteChatStore(path: path)
        try first.journal.start(codec: codec, keep: 1000)
        // More than the reservation runs ahead, none of them written.
        var last: UInt64 = 0
        for _ in 0..<150_000 { last = first.journal.takePosition() }

        // As if that process died here: another opens the same database.
        let second = try SQLiteChatStore(path: path)
        #expect(second.journal.epoch == first.journal.epoch)
        #expect(second.journal.newestAtOpen >= last)
        try second.journal.start(codec: codec, keep: 1000)
        #expect(second.journal.takePosition() > last)
        try first.close()
        try second.close()
    }
}

enum EventBusFixtures {
    static func positioned(_ event: ChatEvent, at position: UInt64) -> PositionedEvent {
        PositionedEvent(event: event, position: position, originToken: nil)
    }

    /// A message event for message `id` in chat 7.
    static func message(_ id: Int64) -> ChatEvent {
        let sender = UserRef(id: UserID(2), handle: "sender", displayName: "sender")
        let chat = Chat(
            id: ChatID(7), kind: .group, handle: "seven", title: nil, isPublic: true, participants: [],
            createdAt: Date(timeIntervalSince1970: 0))
        let message = Message(
            id: MessageID(id), chatID: ChatID(7), seq: id, sender: sender, kind: .text, text: "m\(id)", media: nil,
            sentAt: Date(timeIntervalSince1970: 0), clientID: nil)
        return .message(MessageEvent(chat: chat, message: message))
    }
}
