import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Presence watches (IRC's MONITOR): handles a user is told about coming online and
/// going, whether or not they share a chat, kept with the account.
@Suite(.timeLimit(.minutes(10))) struct PresenceWatchTests {
    @Test(arguments: StoreKind.all) func aWatcherHearsOfAHandleComingAndGoingWithoutSharingAChat(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        await bob.close()
        let events = EventRecorder(alice)
        let watched = try await alice.watchPresence(of: ["Bob", "nobody", "bad*handle"])
        #expect(watched.map(\.handle) == ["bob", "nobody"], "a handle that cannot be one is left out")
        #expect(watched.allSatisfy { !$0.online } && watched[0].user?.handle == "bob" && watched[1].user == nil)

        let again = try await world.signIn("bob")
        let online = await events.first { event in
            if case .presenceChanged(let change) = event { change.user.handle == "bob" && change.online } else { false }
        }
        guard case .presenceChanged(let change) = online else { throw ParleyError(.unknownUser, "no presence event") }
        #expect(change.watched == true)
        #expect(try await alice.watchedPresence().map(\.online) == [true, false])
        await again.close()
        #expect(
            await events.first { event in
                if case .presenceChanged(let change) = event { change.user.handle == "bob" && !change.online } else { false }
            } != nil)

        // At most a hundred handles; taking some off makes room.
        let many = (1...120).map { "user\($0)" }
        #expect(try await alice.watchPresence(of: many).count == Limits.maxPresenceWatches - 2, "bob and nobody hold two places")
        #expect(try await alice.watchedPresence().count == Limits.maxPresenceWatches)
        try await alice.unwatchPresence(of: ["bob", "user1"])
        #expect(try await alice.watchPresence(of: ["user200", "user201", "user202"]).map(\.handle) == ["user200", "user201"])
        #expect(try await alice.watchedPresence().count == Limits.maxPresenceWatches)
        try await alice.unwatchPresence(of: nil)
        #expect(try await alice.watchedPresence().isEmpty)
    }
}
