import Foundation
import ParleyCore
import ParleyEngine
import ParleyStore
import ParleyTesting
import Testing

/// IRC guests (`signInAsGuest`): a nick for as long as a connection lasts, never an
/// account anyone can sign in as.
@Suite(.timeLimit(.minutes(10))) struct GuestTests {
    @Test(arguments: StoreKind.all) func aGuestHoldsAFreeNickWhileConnectedAndNeverAnAccounts(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "lobby", title: nil, isPublic: true)

        await expectError(.handleTaken) { try await world.engine.connect().signInAsGuest(nick: "Alice") }
        await expectError(.invalidHandle) { try await world.engine.connect().signInAsGuest(nick: "no spaces") }

        let guest = world.engine.connect()
        let signedIn = try await guest.signInAsGuest(nick: "Visitor")
        #expect(signedIn.user.handle == "Visitor" && signedIn.user.displayName == "Visitor (guest)", "the nick keeps its case")
        _ = try await guest.joinGroup(handle: "lobby")
        let said = try await guest.sendMessage(to: .chat(group.id), text: "hi from a guest", clientID: nil)
        await expectError(.handleTaken) { try await world.engine.connect().signInAsGuest(nick: "visitor") }
        // No password, so no way in as the guest, now or later.
        await expectError(.badCredentials) { try await world.engine.connect().signIn(login: "@visitor", password: "") }

        await guest.close()
        let next = world.engine.connect()
        let again = try await next.signInAsGuest(nick: "visitor")
        #expect(again.user.id != signedIn.user.id, "a new guest, not the old one's account")
        await expectError(.notMember) { try await next.history(chat: group.id, limit: 10, before: nil) }
        let history = try await alice.history(chat: group.id, limit: 10, before: nil)
        let kept = try #require(history.first { $0.seq == said.seq })
        #expect(kept.sender.displayName == "Visitor (guest)" && kept.sender.handle.hasPrefix("Visitor~"))
        #expect(try await alice.members(chat: group.id).map(\.user.handle) == ["alice"], "a guest that went left its groups")
        // An account's handle is never freed as a guest's is.
        #expect(try await world.store.retireGuest(try await alice.me().id) == false)
        #expect(try await alice.me().handle == "alice")
    }

    /// A guest may say it is a bot (IRC's +B), a person's account may not; a new display
    /// name reaches the members of one's chats (`renamed`); client-only tags reach them
    /// with a message and on their own (`tagged`), and are never stored.
    @Test(arguments: StoreKind.all) func botMarksNamesAndClientTagsReachOthers(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "lobby", title: nil, isPublic: true)
        let events = EventRecorder(alice)
        await expectError(.forbidden) { try await alice.declareBot() }

        let guest = world.engine.connect()
        _ = try await guest.signInAsGuest(nick: "helper")
        _ = try await guest.joinGroup(handle: "lobby")
        #expect(try await guest.declareBot().isBot)
        _ = try await guest.sendMessage(
            to: .chat(group.id), text: "beep", clientID: nil, via: nil, replyTo: nil, clientTags: ["+example": "yes"])
        let heard = await events.first { if case .message(let sent) = $0 { sent.message.text == "beep" } else { false } }
        guard case .message(let sent) = heard else {
            Issue.record("no message")
            return
        }
        #expect(sent.message.sender.isBot && sent.message.clientTags == ["+example": "yes"])
        let kept = try #require(try await alice.history(chat: group.id, limit: 10, before: nil).first { $0.text == "beep" })
        #expect(kept.sender.isBot && kept.clientTags == nil, "tags travel with the message and are not kept")

        await expectError(.invalidArgument) { try await guest.sendTags(["no-plus": "x"], to: .chat(group.id)) }
        let notice = try await guest.sendTags(["+typing": "paused"], to: .chat(group.id))
        let tagged = await events.first { if case .tagged(let got) = $0 { got.id == notice.id } else { false } }
        guard case .tagged(let got) = tagged else {
            Issue.record("no tags")
            return
        }
        #expect(got.chatID == group.id && got.tags == ["+typing": "paused"] && got.user.handle == "helper")

        _ = try await guest.updateProfile(displayName: "Helpful Bot")
        let renamed = await events.first { if case .renamed = $0 { true } else { false } }
        guard case .renamed(let change) = renamed else {
            Issue.record("no rename")
            return
        }
        #expect(change.user.displayName == "Helpful Bot (guest)" && change.previousHandle == "helper", "a guest keeps its mark")
    }
}
