import Foundation
import GRDB
import ParleyCore
import ParleyEngine
import ParleySQLite
import ParleyTesting
import Testing

/// A closed SQLite store leaves everything in its database file: the write-ahead logs of
/// the store and of its search index are emptied on the way out, so the file copied
/// alone (as `cp parley.sqlite` would) holds every message.
@Suite(.timeLimit(.minutes(10))) struct StoreCloseTests {
    @Test func aClosedStoresFileAloneHoldsEveryMessage() async throws {
        let world = try TestWorld()
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        let texts = (1...40).map { "note \($0) " + String(repeating: "y", count: 100) }
        for text in texts { _ = try await alice.sendMessage(to: .chat(group.id), text: text, clientID: nil) }
        #expect(try await alice.search("note", in: nil, limit: 100).count == texts.count)
        let store = try #require(world.store as? SQLiteChatStore)
        try store.close()

        for log in [world.databasePath + "-wal", world.databasePath + "-search-wal"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
            #expect(size == 0, "\(log) holds \(size) bytes after close")
        }

        let copy = try TestWorld.makeFolder()
        defer { try? FileManager.default.removeItem(at: copy) }
        let copied = copy.appendingPathComponent("parley.sqlite").path
        try FileManager.default.copyItem(atPath: world.databasePath, toPath: copied)
        let reopened = try SQLiteChatStore(path: copied)
        defer { try? reopened.close() }
        let again = try await TestWorld.signIn("alice", on: reopened)
        #expect(try await again.history(chat: group.id, limit: 100, before: nil).map(\.text) == texts)
    }
}
