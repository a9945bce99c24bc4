import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct LiveEventTests {
    @Test(arguments: StoreKind.all) func everySessionOfEveryMemberGetsTheMessageOnce(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let bobPhone = try await world.signIn("bob")
        let aliceLaptop = try await world.signIn("alice")
        let outsider = try await world.signUp("outsider")
        let group = try await alice.createGroup(handle: "live", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "live")
        let recorders = [bob, bobPhone, aliceLaptop, alice, outsider].map(EventRecorder.init)
        _ = try await alice.sendMessage(to: .chat(group.id), text: "hello all", clientID: nil)
        let isHello: (ChatEvent) -> Bool = { if case .message(let e) = $0 { e.message.text == "hello all" } else { false } }
        for recorder in recorders[0..<3] { #expect(await recorder.count(1, where: isHello) == 1) }
        // Later messages to each recorder: a user's events come in order, so once one
        // has its barrier, a wrong delivery of "hello all" would already be there.
        _ = try await aliceLaptop.sendMessage(to: .chat(group.id), text: "barrier", clientID: nil)  // bob, bobPhone, alice
        _ = try await bob.sendMessage(to: .chat(group.id), text: "barrier", clientID: nil)  // aliceLaptop
        _ = try await alice.sendMessage(to: .user(try await outsider.me().id), text: "barrier", clientID: nil)  // outsider
        let isBarrier: (ChatEvent) -> Bool = { if case .message(let e) = $0 { e.message.text == "barrier" } else { false } }
        for recorder in recorders { #expect(await recorder.count(1, where: isBarrier) >= 1) }
        for recorder in recorders[0..<3] { #expect(recorder.events.filter(isHello).count == 1) }
        #expect(recorders[3].events.filter(isHello).isEmpty)  // the sending session has the result
        #expect(recorders[4].events.filter(isHello).isEmpty)
    }

    @Test func eventsRoundTripThroughJSON() async throws {
        let user = UserRef(id: UserID(1), handle: "alice", displayName: "Alice")
        let chat = Chat(
            id: ChatID(2), kind: .group, handle: "g", title: nil, isPublic: true, participants: [],
            createdAt: Date(timeIntervalSince1970: 5))
        let events: [ChatEvent] = [
            .memberJoined(MemberChange(chat: chat, user: user, role: .member)),
            .presenceChanged(PresenceChange(user: user, online: false, viewing: nil)),
            .chatDeleted(ChatDeleted(chatID: ChatID(2))),
        ]
        for event in events {
            let data = try JSONEncoder().encode(event)
            #expect(try JSONDecoder().decode(ChatEvent.self, from: data) == event)
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            #expect(object?["type"] as? String == event.type)
        }
    }

    @Test(arguments: StoreKind.all) func presenceFollowsLiveSessionsAndViewing(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "room", title: nil, isPublic: true)
        let bob = try await world.signUp("bob")
        _ = try await bob.joinGroup(handle: "room")
        let carol = try await world.signUp("carol")
        _ = try await carol.joinGroup(handle: "room")
        let aliceEvents = EventRecorder(alice)
        try await bob.setViewing(group.id)
        var online = try await alice.online(in: group.id)
        #expect(online.map(\.user.handle) == ["alice", "bob", "carol"])
        #expect(online.filter(\.viewing).map(\.user.handle) == ["bob"])
        #expect(
            await aliceEvents.first {
                if case .presenceChanged(let p) = $0 { p.user.handle == "bob" && p.viewing == group.id } else { false }
            } != nil)

        // Closing a connection (or dropping it) takes its presence with it.
        await bob.close()
        online = try await alice.online(in: group.id)
        #expect(online.map(\.user.handle) == ["alice", "carol"])
        #expect(
            await aliceEvents.first { if case .presenceChanged(let p) = $0 { p.user.handle == "bob" && !p.online } else { false } } != nil)

        // A user with two sessions stays online until the last one ends.
        let carolPhone = try await world.signIn("carol")
        try await carol.signOut()
        #expect(try await alice.online(in: group.id).map(\.user.handle) == ["alice", "carol"])
        await carolPhone.close()
        #expect(try await alice.online(in: group.id).map(\.user.handle) == ["alice"])
    }

    @Test(arguments: StoreKind.all) func aDroppedConnectionGoesOffline(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "room", title: nil, isPublic: true)
        var bob: EngineSession? = try await world.signUp("bob")
        _ = try await bob?.joinGroup(handle: "room")
        let aliceEvents = EventRecorder(alice)
        #expect(try await alice.online(in: group.id).count == 2)
        bob = nil  // the connection object is gone without a goodbye
        #expect(bob == nil)
        #expect(
            await aliceEvents.first { if case .presenceChanged(let p) = $0 { p.user.handle == "bob" && !p.online } else { false } } != nil)
        #expect(try await alice.online(in: group.id).map(\.user.handle) == ["alice"])
    }
}
