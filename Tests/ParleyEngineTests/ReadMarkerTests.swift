import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct ReadMarkerTests {
    @Test(arguments: StoreKind.all) func markersMoveForwardOnlyAndDriveUnreadCounts(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let group = try await alice.createGroup(handle: "reading", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "reading")
        for index in 1...5 { _ = try await alice.sendMessage(to: .chat(group.id), text: "m\(index)", clientID: nil) }
        #expect(try await bob.chats()[0].unread == 5)
        #expect(try await alice.chats()[0].unread == 0)  // her own messages are not unread
        #expect(try await bob.markRead(chat: group.id, upTo: 3).seq == 3)
        #expect(try await bob.chats()[0].unread == 2)
        #expect(try await bob.markRead(chat: group.id, upTo: 1).seq == 3)  // never backwards
        #expect(try await bob.markRead(chat: group.id, upTo: 99).seq == 5)  // clamped to the last message
        #expect(try await bob.chats()[0].unread == 0)
        await expectError(.invalidArgument) { try await bob.markRead(chat: group.id, upTo: -1) }
    }

    @Test(arguments: StoreKind.all) func sendingMarksTheChatRead(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let chat = try await alice.sendMessage(to: .user(try await bob.me().id), text: "one", clientID: nil).chatID
        _ = try await alice.sendMessage(to: .chat(chat), text: "two", clientID: nil)
        #expect(try await bob.chats()[0].unread == 2)
        _ = try await bob.sendMessage(to: .chat(chat), text: "reply", clientID: nil)
        #expect(try await bob.chats()[0].unread == 0)
        #expect(try await alice.chats()[0].unread == 1)
    }

    @Test(arguments: StoreKind.all) func seenByListsReadersOtherThanTheSender(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let group = try await alice.createGroup(handle: "seen", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "seen")
        _ = try await carol.joinGroup(handle: "seen")
        let aliceEvents = EventRecorder(alice)
        _ = try await alice.sendMessage(to: .chat(group.id), text: "m1", clientID: nil)
        _ = try await alice.sendMessage(to: .chat(group.id), text: "m2", clientID: nil)
        #expect(try await alice.seenBy(chat: group.id, seq: 1).isEmpty)
        _ = try await bob.markRead(chat: group.id, upTo: 2)
        _ = try await carol.markRead(chat: group.id, upTo: 1)
        #expect(try await alice.seenBy(chat: group.id, seq: 1).map(\.user.handle).sorted() == ["bob", "carol"])
        #expect(try await alice.seenBy(chat: group.id, seq: 2).map(\.user.handle) == ["bob"])
        let moved = await aliceEvents.first { if case .readMarkerMoved(let m) = $0 { m.user.handle == "bob" } else { false } }
        guard case .readMarkerMoved(let marker) = moved else {
            Issue.record("no read marker event")
            return
        }
        #expect(marker.seq == 2)
        await expectError(.unknownMessage) { try await alice.seenBy(chat: group.id, seq: 3) }
    }
}
