import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// A search narrowed by sender, chat and time, with and without words, and the context
/// around what it finds, on both stores.
@Suite(.timeLimit(.minutes(10))) struct SearchFilterTests {
    @Test(arguments: StoreKind.all) func filtersNarrowBySenderChatAndTime(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let bobID = try await bob.me().id
        let ops = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        let dev = try await alice.createGroup(handle: "dev", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "ops")
        _ = try await bob.joinGroup(handle: "dev")
        let start = world.clock.now
        // One message an hour: ops 1 alice, ops 2 bob, dev 1 bob, ops 3 alice, dev 2 bob.
        let plan: [(ChatID, EngineSession, String)] = [
            (ops.id, alice, "deploy on monday"), (ops.id, bob, "deploy is green"), (dev.id, bob, "deploy the docs"),
            (ops.id, alice, "deploy again friday"), (dev.id, bob, "lunch"),
        ]
        for (chat, session, text) in plan {
            _ = try await session.sendMessage(to: .chat(chat), text: text, clientID: nil)
            world.clock.advance(by: .seconds(3600))
        }
        func texts(_ search: MessageSearch) async throws -> [String] { try await alice.search(search).map(\.message.text) }

        #expect(try await texts(MessageSearch(words: "deploy", from: bobID)) == ["deploy the docs", "deploy is green"])
        #expect(try await texts(MessageSearch(words: "deploy", chat: ops.id, from: bobID)) == ["deploy is green"])
        // after is inclusive, before exclusive: the hour of message 2 up to that of 4.
        let second = start.addingTimeInterval(3600)
        let fourth = start.addingTimeInterval(3 * 3600)
        #expect(try await texts(MessageSearch(words: "deploy", before: fourth, after: second)) == ["deploy the docs", "deploy is green"])
        #expect(try await texts(MessageSearch(words: "deploy", after: fourth)) == ["deploy again friday"])
        #expect(try await texts(MessageSearch(words: "deploy", before: second)) == ["deploy on monday"])
        // No words: the filters alone, newest first.
        #expect(try await texts(MessageSearch(words: "", from: bobID)) == ["lunch", "deploy the docs", "deploy is green"])
        #expect(try await texts(MessageSearch(words: "", chat: dev.id, after: fourth)) == ["lunch"])
        #expect(try await texts(MessageSearch(words: "", chat: ops.id, limit: 2)) == ["deploy again friday", "deploy is green"])
        // A deleted message is found by nothing.
        _ = try await bob.deleteMessage(chat: dev.id, seq: 2)
        #expect(try await texts(MessageSearch(words: "", from: bobID)) == ["deploy the docs", "deploy is green"])

        await expectError(.invalidArgument) { _ = try await alice.search(MessageSearch(words: " * ")) }
        await expectError(.invalidArgument) { _ = try await alice.search(MessageSearch(words: "x", before: second, after: second)) }
        await expectError(.invalidArgument) { _ = try await alice.search(MessageSearch(words: "x", context: 6)) }
        await expectError(.invalidArgument) { _ = try await alice.search(MessageSearch(words: "x", context: -1)) }
        await expectError(.invalidArgument) { _ = try await alice.search(MessageSearch(words: "x", limit: 0)) }
        let eve = try await world.signUp("eve")
        await expectError(.notMember) { _ = try await eve.search(MessageSearch(words: "", chat: ops.id)) }
        #expect(try await eve.search(MessageSearch(words: "", from: bobID)).isEmpty, "nothing from chats eve is not in")
    }

    @Test(arguments: StoreKind.all) func contextShowsNeighboursButNotWhatWasCleared(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let bobID = try await bob.me().id
        for text in ["one", "two", "needle three", "four", "five", "six", "needle seven"] {
            _ = try await alice.sendMessage(to: .user(bobID), text: text, clientID: nil)
        }
        let hits = try await alice.search(MessageSearch(words: "needle", context: 2))
        #expect(hits.map(\.message.seq) == [7, 3])
        #expect(hits[0].before.map(\.text) == ["five", "six"] && hits[0].after.isEmpty)
        #expect(hits[1].before.map(\.text) == ["one", "two"] && hits[1].after.map(\.text) == ["four", "five"])
        #expect(try await alice.search(MessageSearch(words: "needle")).allSatisfy { $0.before.isEmpty && $0.after.isEmpty })

        // Bob clears the chat after message 7: his search and context start at 8, alice's do not.
        let chat = try #require(try await bob.directChat(with: try await alice.me().id))
        try await bob.deleteChat(chat.id)
        for text in ["eight", "needle nine"] { _ = try await alice.sendMessage(to: .user(bobID), text: text, clientID: nil) }
        let bobs = try await bob.search(MessageSearch(words: "needle", context: 5))
        #expect(bobs.map(\.message.seq) == [9], "message 7 was cleared")
        #expect(bobs[0].before.map(\.seq) == [8])
        let alices = try await alice.search(MessageSearch(words: "needle", context: 5))
        #expect(alices.first?.before.map(\.seq) == [4, 5, 6, 7, 8])
    }
}
