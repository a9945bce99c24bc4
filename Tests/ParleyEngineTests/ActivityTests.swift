import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Away, last seen and sessions, on both stores.
@Suite(.timeLimit(.minutes(10))) struct ActivityTests {
    static func isAway(_ event: ChatEvent) -> Bool { if case .away = event { true } else { false } }

    @Test(arguments: StoreKind.all) func awayShowsInOnlineWhoisAndOnceToADirectSender(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let aliceEvents = EventRecorder(alice)
        let group = try await alice.createGroup(handle: "club", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "club")
        let bobID = try await bob.me().id
        try await bob.setAway("  at lunch ")
        #expect(try await alice.online(in: group.id).first { $0.user.handle == "bob" }?.away == "at lunch")
        #expect(try await alice.activity(of: bobID).away == "at lunch")
        await expectError(.invalidText) { try await bob.setAway(String(repeating: "z", count: 201)) }

        _ = try await alice.sendMessage(to: .user(bobID), text: "are you there?", clientID: nil)
        _ = try await alice.sendMessage(to: .user(bobID), text: "hello?", clientID: nil)
        // bob answers (which also ends his away): by then alice has had every notice.
        _ = try await bob.sendMessage(to: .user(try await alice.me().id), text: "back now", clientID: nil)
        #expect(await aliceEvents.first(timeout: .seconds(120), where: ConversationTests.isMessage("back now")) != nil)
        let notices = aliceEvents.events.filter(Self.isAway)
        #expect(notices.count == 1)
        if case .away(let notice)? = notices.first { #expect(notice.user.handle == "bob" && notice.message == "at lunch") }
        #expect(try await alice.activity(of: bobID).away == nil)

        // A new away period tells her again; /back ends it.
        try await bob.setAway(nil)
        #expect(try await alice.activity(of: bobID).away == "away")
        _ = try await alice.sendMessage(to: .user(bobID), text: "again?", clientID: nil)
        #expect(await aliceEvents.count(2, timeout: .seconds(120), where: Self.isAway) == 2)
        try await bob.back()
        #expect(try await alice.activity(of: bobID).away == nil)
    }

    @Test(arguments: StoreKind.all) func lastSeenIsToTheMinuteAndHidingIsMutual(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let bobID = try await bob.me().id
        let carolID = try await carol.me().id
        let online = try await alice.activity(of: bobID)
        #expect(online.online && online.lastSignIn != nil && online.user.email == nil)
        #expect(online.lastSeen.map { Int64($0.timeIntervalSince1970) % 60 } == 0)
        let leftAt = world.clock.now
        await bob.close()
        world.clock.advance(by: .seconds(3600))
        let gone = try await eventuallyOffline(alice, bobID)
        #expect(!gone.online)
        let seen = try #require(gone.lastSeen)
        #expect(abs(seen.timeIntervalSince(leftAt)) < 60)

        try await carol.hideActivity(true)
        let hidden = try await alice.activity(of: carolID)
        #expect(hidden.hidden && hidden.lastSeen == nil && hidden.lastSignIn == nil)
        // carol sees her own, and nobody else's.
        #expect(try await carol.activity(of: carolID).lastSignIn != nil)
        let fromCarol = try await carol.activity(of: bobID)
        #expect(fromCarol.lastSeen == nil && fromCarol.lastSignIn == nil && !fromCarol.online)
        try await carol.hideActivity(false)
        #expect(try await carol.activity(of: bobID).lastSeen != nil)
        await expectError(.unknownUser) { try await alice.activity(of: UserID(9999)) }
    }

    private func eventuallyOffline(_ asker: EngineSession, _ user: UserID) async throws -> UserActivity {
        var found = try await asker.activity(of: user)
        _ = try await eventually {
            found = try await asker.activity(of: user)
            return !found.online
        }
        return found
    }

    @Test(arguments: StoreKind.all) func sessionsAreListedAndOneCanBeRevokedWithItsConnection(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let first = try await world.signUp("alice")
        let second = world.engine.connect(address: "203.0.113.9", client: "test-client/1.0")
        _ = try await second.signIn(login: "@alice", password: TestWorld.password(of: "alice"))
        let sessions = try await first.sessions()
        #expect(sessions.count == 2)
        #expect(sessions.filter(\.current).count == 1)
        let other = try #require(sessions.first { !$0.current })
        #expect(other.client == "test-client/1.0" && other.address == "203.0.113.9")
        #expect(other.id.count == 8)
        await expectError(.unknownSession) { try await first.revokeSession("00000000") }
        try await first.revokeSession(other.id.uppercased())
        // Its live connection ends, and its token is no good any more.
        #expect(await eventually { await errorCode { try await second.me() } == .notSignedIn })
        #expect(try await first.sessions().count == 1)
        let third = world.engine.connect()
        await expectError(.invalidToken) { try await third.resume(token: "not a token") }
        // Revoking the current session signs it out.
        let current = try #require(try await first.sessions().first)
        try await first.revokeSession(current.id)
        await expectError(.notSignedIn) { try await first.sessions() }
    }
}
