import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Ignoring, on both stores: the ignored user's group messages, mentions, direct
/// messages and invites stop reaching the user who ignores them, live and read back;
/// everyone else hears them; unignoring brings them back.
@Suite(.timeLimit(.minutes(10))) struct IgnoreTests {
    @Test(arguments: StoreKind.all) func anIgnoredUserNoLongerReachesTheIgnorer(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let (aliceID, bobID) = (try await alice.me().id, try await bob.me().id)
        let aliceEvents = EventRecorder(alice)
        let carolEvents = EventRecorder(carol)
        let group = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "team", key: nil)
        _ = try await carol.joinGroup(handle: "team", key: nil)

        #expect(try await alice.ignore(bobID).handle == "bob")
        #expect(try await alice.ignored().map(\.handle) == ["bob"])
        await expectError(.invalidArgument) { _ = try await alice.ignore(aliceID) }
        _ = try await bob.sendMessage(to: .chat(group.id), text: "@alice look at this", clientID: nil)
        _ = try await bob.sendMessage(to: .user(aliceID), text: "psst", clientID: nil)
        let privateGroup = try await bob.createGroup(handle: "bobs", title: nil, isPublic: false)
        _ = try await bob.sendInvite(to: aliceID, chat: privateGroup.id)
        // A later message from someone else, after which all of bob's would have arrived.
        _ = try await carol.sendMessage(to: .chat(group.id), text: "carol here", clientID: nil)
        #expect(await aliceEvents.first { if case .message(let m) = $0 { m.message.text == "carol here" } else { false } } != nil)
        #expect(await carolEvents.first { if case .message(let m) = $0 { m.message.text == "@alice look at this" } else { false } } != nil)
        let heard = aliceEvents.events.filter {
            switch $0 {
            case .message(let m): m.message.sender.id == bobID
            case .chatCreated(let created): created.by.id == bobID
            case .invited: true
            default: false
            }
        }
        #expect(heard.isEmpty, "\(heard)")
        #expect(try await alice.history(chat: group.id, limit: 10, before: nil).map(\.text) == ["carol here"])
        #expect(try await alice.mentions(limit: 10).isEmpty)
        #expect(try await alice.search(MessageSearch(words: "look", limit: 10)).isEmpty, "nor found by search")
        #expect(try await carol.search(MessageSearch(words: "look", limit: 10)).count == 1)
        #expect(try await carol.history(chat: group.id, limit: 10, before: nil).map(\.text) == ["@alice look at this", "carol here"])
        // The chat list counts only what alice will see: carol's line, no mention, and
        // the direct chat holds no line from anyone else.
        let list = Dictionary(uniqueKeysWithValues: try await alice.chats().map { ($0.chat.id, $0) })
        #expect(list[group.id]?.unread == 1 && list[group.id]?.mentions == 0, "\(String(describing: list[group.id]))")
        #expect(list[group.id]?.lastMessage?.text == "carol here")
        _ = try await bob.sendMessage(to: .chat(group.id), text: "@alice last word", clientID: nil)
        #expect(await carolEvents.first { if case .message(let m) = $0 { m.message.text == "@alice last word" } else { false } } != nil)
        let after = try await alice.chats()
        let team = try #require(after.first { $0.chat.id == group.id })
        #expect(team.lastMessage?.text == "carol here" && team.unread == 1 && team.mentions == 0)
        let direct = after.first { $0.chat.kind == .direct }
        #expect(direct == nil, "an ignored user's first message makes no chat: \(String(describing: direct))")
        #expect(try await carol.chats().first { $0.chat.id == group.id }?.lastMessage?.text == "@alice last word", "carol sees bob's")

        // Heard again once unignored, history and all.
        try await alice.unignore(bobID)
        await expectError(.invalidArgument) { try await alice.unignore(bobID) }
        #expect(
            try await alice.history(chat: group.id, limit: 10, before: nil).map(\.text) == [
                "@alice look at this", "carol here", "@alice last word",
            ])
        let unignored = try #require(try await alice.chats().first { $0.chat.id == group.id })
        #expect(unignored.unread == 3 && unignored.mentions == 2 && unignored.lastMessage?.text == "@alice last word")
        _ = try await bob.sendMessage(to: .chat(group.id), text: "back again", clientID: nil)
        #expect(await aliceEvents.first { if case .message(let m) = $0 { m.message.text == "back again" } else { false } } != nil)
    }
}

/// Notification levels, on both stores: kept per member and chat, shown in the chat
/// list, with unread messages counted whatever the level; the user's other clients
/// hear of a change.
@Suite(.timeLimit(.minutes(10))) struct NotifyLevelTests {
    @Test(arguments: StoreKind.all) func aLevelIsKeptPerMemberAndChat(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let eve = try await world.signUp("eve")
        let team = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        let random = try await alice.createGroup(handle: "random", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "team", key: nil)
        _ = try await bob.joinGroup(handle: "random", key: nil)
        let bobsPhone = try await world.signIn("bob")
        var told = bobsPhone.events.makeAsyncIterator()
        try await bob.setNotify(.nothing, in: random.id)
        try await bob.setNotify(.all, in: team.id)
        await expectError(.notMember) { try await eve.setNotify(.nothing, in: team.id) }
        _ = try await alice.sendMessage(to: .chat(random.id), text: "@bob anyone?", clientID: nil)
        let summaries = Dictionary(uniqueKeysWithValues: try await bob.chats().map { ($0.chat.id, $0) })
        #expect(summaries[random.id]?.notify == .nothing && summaries[team.id]?.notify == .all)
        #expect(summaries[random.id]?.unread == 1 && summaries[random.id]?.mentions == 1, "muted, yet counted")
        #expect(try await alice.chats().allSatisfy { $0.notify == nil }, "each member's own")
        try await bob.setNotify(nil, in: random.id)
        #expect(try await bob.chats().first { $0.chat.id == random.id }?.notify == nil)
        // bob's other client heard each change, in order (and the message between them).
        var changes: [NotifyChange] = []
        while changes.count < 3, let event = await told.next() {
            if case .notifyChanged(let change) = event { changes.append(change) }
        }
        #expect(
            changes == [
                .init(chatID: random.id, level: .nothing), .init(chatID: team.id, level: .all), .init(chatID: random.id, level: nil),
            ])
    }
}
