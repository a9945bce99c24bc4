import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct DirectChatTests {
    @Test(arguments: StoreKind.all) func firstMessageCreatesTheChatForBoth(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let bobEvents = EventRecorder(bob)
        let bobID = try await bob.me().id
        #expect(try await alice.directChat(with: bobID) == nil)
        let message = try await alice.sendMessage(to: .user(bobID), text: "  hi bob  ", clientID: nil)
        #expect(message.seq == 1)
        #expect(message.text == "hi bob")
        let chat = try #require(try await alice.directChat(with: bobID))
        #expect(chat.id == message.chatID)
        #expect(chat.kind == .direct)
        #expect(Set(chat.participants.map(\.handle)) == ["alice", "bob"])
        let created = await bobEvents.first { if case .chatCreated = $0 { true } else { false } }
        #expect(created?.chatID == chat.id)
        let delivered = await bobEvents.first { if case .message = $0 { true } else { false } }
        guard case .message(let event) = delivered else {
            Issue.record("no message event")
            return
        }
        #expect(event.message.text == "hi bob")
        #expect(event.chat.peer(of: bobID)?.handle == "alice")
        let bobList = try await bob.chats()
        #expect(bobList.count == 1)
        #expect(bobList[0].unread == 1)
        #expect(bobList[0].lastMessage?.text == "hi bob")
        #expect(try await alice.chats()[0].unread == 0)
    }

    @Test(arguments: StoreKind.all) func fiftySimultaneousFirstMessagesMakeOneChat(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let aliceID = try await alice.me().id
        let bobID = try await bob.me().id
        let chats = try await withThrowingTaskGroup(of: ChatID.self) { group in
            for index in 0..<50 {
                let (sender, peer) = index.isMultiple(of: 2) ? (alice, bobID) : (bob, aliceID)
                group.addTask { try await sender.sendMessage(to: .user(peer), text: "first \(index)", clientID: nil).chatID }
            }
            return try await group.reduce(into: Set<ChatID>()) { $0.insert($1) }
        }
        #expect(chats.count == 1)
        #expect(try await alice.chats().count == 1)
        #expect(try await bob.history(chat: chats.first!, limit: 100, before: nil).map(\.seq) == Array(1...50))
    }

    @Test(arguments: StoreKind.all) func cannotMessageYourselfOrUnknownUsers(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        await expectError(.invalidArgument) { try await alice.sendMessage(to: .user(try await alice.me().id), text: "me", clientID: nil) }
        await expectError(.unknownUser) { try await alice.sendMessage(to: .user(UserID(999)), text: "hi", clientID: nil) }
        #expect(try await alice.chats().isEmpty)
    }

    @Test(arguments: StoreKind.all) func onlyParticipantsSeeADirectChat(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let eve = try await world.signUp("eve")
        let chat = try await alice.sendMessage(to: .user(try await bob.me().id), text: "secret", clientID: nil).chatID
        await expectError(.unknownChat) { try await eve.history(chat: chat, limit: 10, before: nil) }
        await expectError(.unknownChat) { try await eve.sendMessage(to: .chat(chat), text: "hi", clientID: nil) }
        await expectError(.unknownChat) { try await eve.chat(chat) }
        await expectError(.unknownChat) { try await eve.markRead(chat: chat, upTo: 1) }
        await expectError(.notAGroup) { try await alice.leave(chat: chat) }
        #expect(try await eve.search("secret", in: nil, limit: 10).isEmpty)
        #expect(try await eve.chats().isEmpty)
    }

    @Test(arguments: StoreKind.all) func chatListIsOrderedByLastActivityWithUnreadCounts(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let aliceID = try await alice.me().id
        _ = try await bob.sendMessage(to: .user(aliceID), text: "from bob 1", clientID: nil)
        world.clock.advance(by: .seconds(1))
        _ = try await carol.sendMessage(to: .user(aliceID), text: "from carol", clientID: nil)
        world.clock.advance(by: .seconds(1))
        let group = try await alice.createGroup(handle: "#team", title: "Team", isPublic: true)
        _ = try await bob.joinGroup(handle: "team")
        world.clock.advance(by: .seconds(1))
        _ = try await bob.sendMessage(to: .chat(group.id), text: "group hello", clientID: nil)
        world.clock.advance(by: .seconds(1))
        _ = try await bob.sendMessage(to: .user(aliceID), text: "from bob 2", clientID: nil)
        let list = try await alice.chats()
        #expect(list.map { $0.lastMessage?.text } == ["from bob 2", "group hello", "from carol"])
        #expect(list.map(\.unread) == [2, 1, 1])
        #expect(list[0].chat.peer(of: aliceID)?.handle == "bob")
        #expect(list[1].chat.handle == "team")
    }

    @Test(arguments: StoreKind.all) func deletingAChatHidesItForMeUntilANewMessage(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let aliceID = try await alice.me().id
        let chat = try await bob.sendMessage(to: .user(aliceID), text: "one", clientID: nil).chatID
        _ = try await bob.sendMessage(to: .user(aliceID), text: "two", clientID: nil)
        let aliceOther = try await world.signIn("alice")
        let otherEvents = EventRecorder(aliceOther)
        try await alice.deleteChat(chat)
        #expect(try await alice.chats().isEmpty)
        #expect(try await alice.history(chat: chat, limit: 10, before: nil).isEmpty)
        #expect(await otherEvents.first { if case .chatDeleted = $0 { true } else { false } } != nil)
        // Bob keeps his.
        #expect(try await bob.history(chat: chat, limit: 10, before: nil).map(\.text) == ["one", "two"])
        #expect(try await bob.chats().count == 1)
        // A new message brings it back with only that message unread and visible.
        _ = try await bob.sendMessage(to: .user(aliceID), text: "three", clientID: nil)
        let list = try await alice.chats()
        #expect(list.count == 1)
        #expect(list[0].unread == 1)
        #expect(list[0].lastMessage?.text == "three")
        #expect(try await alice.history(chat: chat, limit: 10, before: nil).map(\.text) == ["three"])
    }

    /// Each chat's last message shows its sender as they are now: the peer, the user,
    /// or another member, with a name changed since.
    @Test(arguments: StoreKind.all) func theLastMessageShowsItsSenderAsTheyAreNow(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let group = try await alice.createGroup(handle: "crew", title: nil, isPublic: true)
        _ = try await carol.joinGroup(handle: "crew")
        let bobID = try await bob.me().id
        let direct = try await alice.sendMessage(to: .user(bobID), text: "to bob", clientID: nil)
        world.clock.advance(by: .seconds(1))
        let sent = try await carol.sendMessage(to: .chat(group.id), text: "from carol", clientID: "c-1")
        _ = try await carol.updateProfile(displayName: "Carol Renamed")
        let list = try await alice.chats()
        #expect(list.map { $0.lastMessage?.sender.handle } == ["carol", "alice"])
        #expect(
            list[0].lastMessage
                == Message(
                    id: sent.id, chatID: group.id, seq: 1,
                    sender: UserRef(id: sent.sender.id, handle: "carol", displayName: "Carol Renamed", isBot: false),
                    kind: .text, text: "from carol", media: nil, sentAt: sent.sentAt, clientID: "c-1"))
        #expect(try await bob.chats().first?.lastMessage?.id == direct.id)
        #expect(try await bob.chats().first?.lastMessage?.sender.handle == "alice")
    }
}
