import Foundation
import GRDB
import ParleyCore
import ParleyEngine
import ParleySQLite
import ParleyTesting
import Testing

/// SQLite's search index is a file of its own beside the database (`parley.sqlite-search`):
/// sends, edits and deletions never take its lock, a search still sees every one of them,
/// and an index that is gone, not this database's, or not a database, is rebuilt from the
/// messages.
@Suite(.timeLimit(.minutes(10))) struct SearchIndexFileTests {
    @Test func sendsNeverWaitForTheIndexAndALostOrDamagedIndexIsRebuilt() async throws {
        let world = try TestWorld()
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        let first = try await alice.sendMessage(to: .chat(group.id), text: "quarterly deploy on mondey", clientID: nil)
        #expect(try await alice.search("deploy", in: nil, limit: 10).map(\.id) == [first.id])

        // Another connection holds the index's write lock while a send, an edit and a
        // deletion commit; each of them returns.
        let indexPath = world.databasePath + "-search"
        let holder = try await WriteLockHolder.hold(indexPath)
        let second = try await alice.sendMessage(to: .chat(group.id), text: "deploy postponed", clientID: nil)
        let third = try await alice.sendMessage(to: .chat(group.id), text: "deploy cancelled", clientID: nil)
        _ = try await alice.editMessage(chat: group.id, seq: first.seq, text: "quarterly deploy on monday")
        _ = try await alice.deleteMessage(chat: group.id, seq: third.seq)
        try holder.release()

        func searches(_ session: EngineSession) async throws -> [[MessageID]] {
            try await ["deploy", "mondey", "monday", "cancelled"].asyncMap { try await session.search($0, in: nil, limit: 10).map(\.id) }
        }
        let expected = [[second.id, first.id], [], [first.id], []]
        #expect(try await searches(alice) == expected)

        // The index's files are lost: the next store rebuilds it from the messages.
        let store = try #require(world.store as? SQLiteChatStore)
        try store.close()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }
        let reopened = try await Self.reopen(world)
        #expect(try await searches(reopened.alice) == expected)
        try reopened.store.close()

        // An index that claims more than the database holds (a database put back from an
        // older copy) is not trusted: it is rebuilt too.
        let stale = try DatabaseQueue(path: indexPath)
        try await stale.write { db in
            try db.execute(sql: "DELETE FROM message_fts")
            try db.execute(sql: "UPDATE search_state SET indexed_up_to = 1000000")
        }
        try stale.close()
        let again = try await Self.reopen(world)
        #expect(try await searches(again.alice) == expected)
        try again.store.close()

        // An index file that is not a database at all is made anew.
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: indexPath + suffix) }
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: indexPath))
        let rebuilt = try await Self.reopen(world)
        #expect(try await searches(rebuilt.alice) == expected)
        try rebuilt.store.close()
    }

    @Test func editsAndDeletionsTheIndexTookUpLeaveTheDatabaseButTheNewest() async throws {
        let world = try TestWorld()
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        let first = try await alice.sendMessage(to: .chat(group.id), text: "release at noon", clientID: nil)
        let second = try await alice.sendMessage(to: .chat(group.id), text: "release notes drafted", clientID: nil)
        // The index's write lock held elsewhere: its batches cannot apply what follows yet.
        let holder = try await WriteLockHolder.hold(world.databasePath + "-search")
        _ = try await alice.editMessage(chat: group.id, seq: first.seq, text: "release at one")
        _ = try await alice.editMessage(chat: group.id, seq: first.seq, text: "release at two")
        _ = try await alice.deleteMessage(chat: group.id, seq: second.seq)
        func changes() async throws -> [Int64] {
            let reader = try DatabaseQueue(path: world.databasePath)
            defer { try? reader.close() }
            return try await reader.read { db in try Int64.fetchAll(db, sql: "SELECT seq FROM search_change ORDER BY seq") }
        }
        #expect(try await changes() == [1, 2, 3])

        // Nothing is dropped that the index has not applied; a search makes it apply them.
        try await world.engine.purgeExpired()
        #expect(try await changes() == [1, 2, 3])
        try holder.release()
        #expect(try await alice.search("release", in: nil, limit: 10).map(\.id) == [first.id])
        try await world.engine.purgeExpired()
        #expect(try await changes() == [3])

        // Later edits are still seen, and a restart (which prunes too) does not take the
        // index for a stale one: nothing is rebuilt, and the searches stay right.
        _ = try await alice.editMessage(chat: group.id, seq: first.seq, text: "release at three")
        #expect(try await alice.search("two", in: nil, limit: 10).isEmpty)
        #expect(try await alice.search("three", in: nil, limit: 10).map(\.id) == [first.id])
        // A row only the index holds marks it: a rebuild would drop it.
        let store = try #require(world.store as? SQLiteChatStore)
        try store.close()
        let index = try DatabaseQueue(path: world.databasePath + "-search")
        defer { try? index.close() }
        try await index.write { db in try db.execute(sql: "INSERT INTO message_fts (rowid, text) VALUES (999999, 'marker')") }
        let reopened = try await Self.reopen(world)
        #expect(try await changes() == [4])
        #expect(try await reopened.alice.search("release", in: nil, limit: 10).map(\.id) == [first.id])
        #expect(try await reopened.alice.search("drafted", in: nil, limit: 10).isEmpty)
        #expect(try await index.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM message_fts WHERE rowid = 999999") } == 1)
        try reopened.store.close()
    }

    /// The index's batches and the log's checkpoints run on threads of their own, named,
    /// below everything else's CPU priority (nice 19 and 10): on a busy machine the sends
    /// do not wait behind them. The index still keeps up with no search to ask it.
    @Test func theIndexAndTheCheckpointsWorkOnLowPriorityThreadsOfTheirOwn() async throws {
        let world = try TestWorld()
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        // Enough commits to take the log past the 1,000 pages that ask for a checkpoint.
        var newest: Int64 = 0
        for n in 1...300 {
            newest = try await alice.sendMessage(to: .chat(group.id), text: "note \(n)", clientID: nil).id.rawValue
        }
        let index = try DatabaseQueue(path: world.databasePath + "-search")
        defer { try? index.close() }
        let indexed = await eventually {
            let upTo = try? await index.read { db in try Int64.fetchOne(db, sql: "SELECT indexed_up_to FROM search_state") }
            return (upTo ?? 0) >= newest
        }
        #expect(indexed)
        #expect(await eventually { !Self.threadPriorities(named: "parley-checkpoi").isEmpty })
        let indexers = Self.threadPriorities(named: "parley-index")
        #expect(!indexers.isEmpty && indexers.allSatisfy { $0 == 19 })
        #expect(Self.threadPriorities(named: "parley-checkpoi").allSatisfy { $0 == 10 })
    }

    /// The nice value of each of this process's threads with that name.
    private static func threadPriorities(named name: String) -> [Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { task in
            guard let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")"),
                stat[stat.index(after: open)..<close] == name
            else { return nil }
            // After the name: the state is field 3, the nice value field 19.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 16 ? Int(fields[16]) : nil
        }
    }

    /// A second store on the same database, as a restarted process would open it, and
    /// alice signed in to it.
    private static func reopen(_ world: TestWorld) async throws -> (store: SQLiteChatStore, alice: EngineSession) {
        let store = try SQLiteChatStore(path: world.databasePath)
        return (store, try await TestWorld.signIn("alice", on: store))
    }
}

/// Holds the write lock of the SQLite file at a path, on a thread of its own, until released;
/// taking it waits for any writer that has it first.
private final class WriteLockHolder: Sendable {
    private let queue: DatabaseQueue
    private let released = DispatchSemaphore(value: 0)

    private init(queue: DatabaseQueue) { self.queue = queue }

    static func hold(_ path: String) async throws -> WriteLockHolder {
        // The store's own indexer may be writing the index right now: wait for it to let go
        // (a busy timeout, not an error), however long a loaded machine makes that take.
        var configuration = Configuration()
        configuration.busyMode = .timeout(600)
        let holder = WriteLockHolder(queue: try DatabaseQueue(path: path, configuration: configuration))
        try await withCheckedThrowingContinuation { (locked: CheckedContinuation<Void, any Error>) in
            Thread.detachNewThread {
                do {
                    try holder.queue.writeWithoutTransaction { db in
                        try db.execute(sql: "BEGIN IMMEDIATE")
                        locked.resume()
                        holder.released.wait()
                        try? db.execute(sql: "COMMIT")
                    }
                } catch {
                    locked.resume(throwing: error)
                }
            }
        }
        return holder
    }

    /// Lets the lock go and closes the connection once its transaction has ended.
    func release() throws {
        released.signal()
        try queue.close()
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
