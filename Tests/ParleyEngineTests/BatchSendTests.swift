import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// `sendMessages`: the same messages as one `sendMessage` after another, in one commit.
@Suite(.timeLimit(.minutes(10))) struct BatchSendTests {
    @Test(arguments: StoreKind.all) func aBatchLandsInOrderAcrossChatsAndOpensADirectChat(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let bobEvents = EventRecorder(bob)
        let group = try await alice.createGroup(handle: "batch", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "batch")
        let bobID = try await bob.me().id
        let batch = await alice.sendMessages([
            OutgoingText(to: .chat(group.id), text: "one"),
            OutgoingText(to: .user(bobID), text: "first direct"),
            OutgoingText(to: .chat(group.id), text: "  two  "),
            OutgoingText(to: .user(bobID), text: "second direct", clientID: "d-2"),
        ])
        #expect(batch.failure == nil)
        #expect(batch.sent.map(\.text) == ["one", "first direct", "two", "second direct"])
        #expect(try await alice.history(chat: group.id, limit: 10, before: nil).map(\.text) == ["one", "two"])
        let direct = try #require(try await alice.directChat(with: bobID))
        #expect(try await bob.history(chat: direct.id, limit: 10, before: nil).map(\.seq) == [1, 2])
        // Bob hears about each message once, in the order they were sent.
        let heard = await bobEvents.messages(count: 4)
        #expect(heard.map(\.text) == ["one", "first direct", "two", "second direct"])
        // Nothing arrives twice: a later message is the fifth bob hears.
        _ = try await alice.sendMessage(to: .chat(group.id), text: "later", clientID: nil)
        #expect(await bobEvents.messages(count: 5).map(\.text) == ["one", "first direct", "two", "second direct", "later"])
        // A retried client id returns the stored message instead of a second one.
        let retry = await alice.sendMessages([OutgoingText(to: .user(bobID), text: "second direct", clientID: "d-2")])
        #expect(retry.sent.map(\.id) == [batch.sent[3].id])
        #expect(try await bob.history(chat: direct.id, limit: 10, before: nil).count == 2)
    }

    @Test(arguments: [
        ("bell \u{7}", ErrorCode.invalidText),
        ("", .emptyText),
        (String(repeating: "x", count: 4001), .textTooLong),
    ])
    func aBadTextStopsTheBatchThere(text: String, code: ErrorCode) async throws {
        let world = try TestWorld()
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "stops", title: nil, isPublic: true)
        let batch = await alice.sendMessages([
            OutgoingText(to: .chat(group.id), text: "before"),
            OutgoingText(to: .chat(group.id), text: text),
            OutgoingText(to: .chat(group.id), text: "after"),
        ])
        #expect(batch.sent.map(\.text) == ["before"])
        #expect(batch.failure?.code == code)
        #expect(try await alice.history(chat: group.id, limit: 10, before: nil).map(\.text) == ["before"])
    }

    @Test(arguments: StoreKind.all) func aChatTheSenderMayNotUseStopsTheBatchThere(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let mine = try await alice.createGroup(handle: "mine", title: nil, isPublic: true)
        let theirs = try await bob.createGroup(handle: "theirs", title: nil, isPublic: true)
        let batch = await alice.sendMessages([
            OutgoingText(to: .chat(mine.id), text: "kept"),
            OutgoingText(to: .chat(theirs.id), text: "refused"),
            OutgoingText(to: .chat(mine.id), text: "never tried"),
        ])
        #expect(batch.sent.map(\.text) == ["kept"])
        #expect(batch.failure?.code == .notMember)
        #expect(try await alice.history(chat: mine.id, limit: 10, before: nil).map(\.text) == ["kept"])
        #expect(try await bob.history(chat: theirs.id, limit: 10, before: nil).isEmpty)
        // Signed out, nothing is sent; an empty batch is no error.
        let stranger = world.engine.connect()
        #expect(await stranger.sendMessages([OutgoingText(to: .chat(mine.id), text: "x")]).failure?.code == .notSignedIn)
        #expect(await stranger.sendMessages([]).failure == nil)
    }
}
