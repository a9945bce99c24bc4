import Foundation
import GRDB
import ParleyCore
import ParleyEngine
import ParleySQLite
import ParleyTesting
import Testing

/// A new SQLite store file is made with 1 KiB pages, so that a send's commit writes a
/// quarter of the bytes into the log; the search index beside it keeps SQLite's 4 KiB;
/// and a file made before, with 4 KiB pages, keeps them and serves as before.
@Suite(.timeLimit(.minutes(10))) struct StorePageSizeTests {
    @Test func aNewStoreHasSmallPagesAndItsSearchIndexDoesNot() async throws {
        let world = try TestWorld()
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        let sent = try await alice.sendMessage(to: .chat(group.id), text: "page sizes", clientID: nil)
        #expect(try await alice.search("sizes", in: nil, limit: 10).map(\.id) == [sent.id])
        #expect(try Self.pageSize(world.databasePath) == 1_024)
        #expect(try Self.pageSize(world.databasePath + "-search") == 4_096)
    }

    @Test func aStoreMadeWithLargePagesKeepsThemAndServesAcrossRestarts() async throws {
        let folder = try TestWorld.makeFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("parley.sqlite").path
        // A file as an earlier version left it: its header written with 4 KiB pages.
        let old = try DatabaseQueue(path: path)
        try await old.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 4096")
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        try old.close()

        var configuration = ChatEngine.Configuration()
        configuration.bcryptCost = 4
        let store = try SQLiteChatStore(path: path)
        let alice = ChatEngine(store: store, configuration: configuration).connect()
        _ = try await alice.register(
            Registration(email: "alice@example.com", password: TestWorld.password(of: "alice"), displayName: "Alice", handle: "alice"))
        let group = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        // Enough messages to need many pages of each table and index.
        var sent: [MessageID] = []
        for number in 1...300 {
            let text = "message \(number) " + String(repeating: "x", count: 200)
            sent.append(try await alice.sendMessage(to: .chat(group.id), text: text, clientID: "c\(number)").id)
        }
        #expect(try Self.pageSize(path) == 4_096)
        try store.close()

        let reopened = try SQLiteChatStore(path: path)
        defer { try? reopened.close() }
        let again = try await TestWorld.signIn("alice", on: reopened)
        let newest = try await again.history(chat: group.id, limit: 50, before: nil)
        #expect(newest.map(\.id) == Array(sent.suffix(50)))
        // A retried send is still found by its client id, and a new one lands after the rest.
        let retried = try await again.sendMessage(to: .chat(group.id), text: "message 7 again", clientID: "c7")
        #expect(retried.id == sent[6])
        let next = try await again.sendMessage(to: .chat(group.id), text: "after the restart", clientID: "c301")
        #expect(next.seq == 301)
        #expect(try Self.pageSize(path) == 4_096)
    }

    private static func pageSize(_ path: String) throws -> Int {
        let reader = try DatabaseQueue(path: path)
        defer { try? reader.close() }
        return try reader.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 0 }
    }
}
