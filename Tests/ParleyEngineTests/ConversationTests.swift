import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Mentions, replies, edits, deletions, reactions and group topics, on both stores.
@Suite(.timeLimit(.minutes(10))) struct ConversationTests {
    /// alice owns #club; bob and carol are members; dave is in no chat with them.
    struct Club {
        let world: TestWorld
        let alice: EngineSession
        let bob: EngineSession
        let carol: EngineSession
        let dave: EngineSession
        let group: Chat

        init(_ kind: StoreKind, _ configure: (inout ChatEngine.Configuration) -> Void = { _ in }) async throws {
            world = try await TestWorld(on: kind, configure)
            alice = try await world.signUp("alice")
            bob = try await world.signUp("bob")
            carol = try await world.signUp("carol")
            dave = try await world.signUp("dave")
            group = try await alice.createGroup(handle: "club", title: nil, isPublic: true)
            _ = try await bob.joinGroup(handle: "club")
            _ = try await carol.joinGroup(handle: "club")
        }

        func say(_ session: EngineSession, _ text: String) async throws -> Message {
            try await session.sendMessage(to: .chat(group.id), text: text, clientID: nil)
        }
    }

    static func isMessage(_ text: String) -> (ChatEvent) -> Bool {
        { if case .message(let data) = $0 { data.message.text == text } else { false } }
    }

    @Test(arguments: StoreKind.all) func mentionsAreStoredCountedListedAndRuledForEveryone(_ kind: StoreKind) async throws {
        let club = try await Club(kind)
        let bobEvents = EventRecorder(club.bob)
        let sent = try await club.say(club.alice, "hi @Bob and @nobody, mail dave@example.com or @dave")
        // Only members are mentioned; an email address mentions nobody.
        #expect(sent.mentions == ["bob"])
        #expect(!sent.mentionsEveryone)
        let received = await bobEvents.first(timeout: .seconds(120), where: Self.isMessage(sent.text))
        guard case .message(let event) = received else {
            Issue.record("bob did not get the message")
            return
        }
        #expect(event.message.mentions == ["bob"])
        #expect(try await club.bob.chats().first?.mentions == 1)
        #expect(try await club.carol.chats().first?.mentions == 0)
        #expect(try await club.bob.mentions(limit: 10).map(\.seq) == [sent.seq])
        #expect(try await club.carol.mentions(limit: 10).isEmpty)
        _ = try await club.bob.markRead(chat: club.group.id, upTo: sent.seq)
        #expect(try await club.bob.chats().first?.mentions == 0)

        // @all and @here take the owner or an admin, unless the group lets anyone.
        let before = try await club.alice.history(chat: club.group.id, limit: 50, before: nil).count
        await expectError(.forbidden) { try await club.say(club.bob, "@all look") }
        #expect(try await club.alice.history(chat: club.group.id, limit: 50, before: nil).count == before)
        let everyone = try await club.say(club.alice, "@here standup")
        #expect(everyone.mentionsEveryone)
        #expect(try await club.bob.chats().first?.mentions == 1)
        #expect(try await club.carol.chats().first?.mentions == 1)
        #expect(try await club.alice.chats().first?.mentions == 0)
        #expect(try await club.bob.mentions(limit: 10).map(\.seq) == [everyone.seq, sent.seq])
        #expect(try await club.carol.mentions(limit: 10).map(\.seq) == [everyone.seq])
        await expectError(.forbidden) {
            try await club.bob.setGroupRules(in: club.group.id, anyoneSetsTopic: nil, anyoneMentionsAll: true)
        }
        let opened = try await club.alice.setGroupRules(in: club.group.id, anyoneSetsTopic: nil, anyoneMentionsAll: true)
        #expect(opened.anyoneMentionsAll && !opened.anyoneSetsTopic)
        #expect(try await club.say(club.bob, "@all cake").mentionsEveryone)

        // Handles may hold `.` and `_`; a full stop after one ends the sentence.
        let dotted = try await club.world.signUp("erin.o_k")
        _ = try await dotted.joinGroup(handle: "club")
        #expect(try await club.say(club.alice, "thanks @erin.o_k.").mentions == ["erin.o_k"])

        // A direct message mentions its other side; nobody mentions themself.
        let direct = try await club.alice.sendMessage(to: .user(try await club.dave.me().id), text: "@dave @alice ping", clientID: nil)
        #expect(direct.mentions == ["dave"])
        #expect(try await club.dave.mentions(limit: 5).map(\.text) == ["@dave @alice ping"])
        // A non-member can do none of it.
        await expectError(.notMember) { try await club.dave.sendMessage(to: .chat(club.group.id), text: "@all hi", clientID: nil) }
    }

    @Test(arguments: StoreKind.all) func onlyTheSenderEditsWithinTheWindowAndMembersSeeIt(_ kind: StoreKind) async throws {
        let club = try await Club(kind) { $0.editWindow = .seconds(3600) }
        let carolEvents = EventRecorder(club.carol)
        let daveEvents = EventRecorder(club.dave)
        let original = try await club.say(club.alice, "deploy on mondey")
        #expect(try await club.alice.search("mondey", in: nil, limit: 5).count == 1)
        let edited = try await club.alice.editMessage(chat: club.group.id, seq: original.seq, text: "deploy on monday")
        #expect(edited.seq == original.seq && edited.id == original.id)
        #expect(edited.text == "deploy on monday" && edited.editedAt != nil)
        let seen = await carolEvents.first(timeout: .seconds(120)) { if case .messageEdited = $0 { true } else { false } }
        guard case .messageEdited(let event) = seen else {
            Issue.record("carol was not told of the edit")
            return
        }
        #expect(event.message.text == "deploy on monday")
        #expect(try await club.carol.history(chat: club.group.id, limit: 5, before: nil).last?.editedAt != nil)
        #expect(try await club.carol.chats().first?.lastMessage?.text == "deploy on monday")
        // Search finds the new text and no longer the old.
        #expect(try await club.bob.search("mondey", in: nil, limit: 5).isEmpty)
        #expect(try await club.bob.search("monday", in: nil, limit: 5).map(\.seq) == [original.seq])

        await expectError(.forbidden) { try await club.bob.editMessage(chat: club.group.id, seq: original.seq, text: "mine now") }
        await expectError(.notMember) { try await club.dave.editMessage(chat: club.group.id, seq: original.seq, text: "x") }
        await expectError(.unknownMessage) { try await club.alice.editMessage(chat: club.group.id, seq: 99, text: "x") }
        await expectError(.emptyText) { try await club.alice.editMessage(chat: club.group.id, seq: original.seq, text: "  ") }
        club.world.clock.advance(by: .seconds(3601))
        await expectError(.tooLate) { try await club.alice.editMessage(chat: club.group.id, seq: original.seq, text: "late") }
        #expect(try await club.alice.history(chat: club.group.id, limit: 5, before: nil).last?.text == "deploy on monday")
        // dave, in no chat with them, heard nothing: the first thing he hears is this.
        _ = try await club.alice.sendMessage(to: .user(try await club.dave.me().id), text: "for dave", clientID: nil)
        #expect(await daveEvents.first(timeout: .seconds(120), where: Self.isMessage("for dave")) != nil)
        #expect(!daveEvents.events.contains { if case .messageEdited = $0 { true } else { false } })
    }

    @Test(arguments: StoreKind.all) func deletingLeavesATombstoneAndFollowsRoles(_ kind: StoreKind) async throws {
        let club = try await Club(kind) { $0.deleteWindow = .seconds(600) }
        let bobID = try await club.bob.me().id
        try await club.alice.setRole(.admin, for: bobID, in: club.group.id)
        let fromAlice = try await club.say(club.alice, "owner's secret")
        let fromBob = try await club.say(club.bob, "admin's note")
        let fromCarol = try await club.say(club.carol, "password hunter2")
        let reply = try await club.bob.reply(to: fromCarol.seq, in: club.group.id, text: "delete that!", clientID: nil)
        let carolEvents = EventRecorder(club.carol)

        await expectError(.forbidden) { try await club.carol.deleteMessage(chat: club.group.id, seq: fromBob.seq) }
        await expectError(.forbidden) { try await club.bob.deleteMessage(chat: club.group.id, seq: fromAlice.seq) }
        await expectError(.notMember) { try await club.dave.deleteMessage(chat: club.group.id, seq: fromCarol.seq) }
        // An admin deletes a member's message: members hear who did it.
        let tombstone = try await club.bob.deleteMessage(chat: club.group.id, seq: fromCarol.seq)
        #expect(tombstone.isDeleted && tombstone.text.isEmpty && tombstone.seq == fromCarol.seq)
        let told = await carolEvents.first(timeout: .seconds(120)) { if case .messageDeleted = $0 { true } else { false } }
        guard case .messageDeleted(let event) = told else {
            Issue.record("carol was not told")
            return
        }
        #expect(event.by?.handle == "bob" && event.message.text.isEmpty)
        await expectError(.messageDeleted) { try await club.bob.deleteMessage(chat: club.group.id, seq: fromCarol.seq) }
        await expectError(.messageDeleted) { try await club.carol.editMessage(chat: club.group.id, seq: fromCarol.seq, text: "x") }
        // The owner deletes an admin's; everyone deletes their own.
        _ = try await club.alice.deleteMessage(chat: club.group.id, seq: fromBob.seq)
        _ = try await club.alice.deleteMessage(chat: club.group.id, seq: fromAlice.seq)

        let history = try await club.carol.history(chat: club.group.id, limit: 10, before: nil)
        #expect(history.map(\.seq) == [fromAlice.seq, fromBob.seq, fromCarol.seq, reply.seq])
        #expect(history.prefix(3).allSatisfy { $0.isDeleted && $0.text.isEmpty })
        // A reply to a deleted message quotes a tombstone.
        #expect(history.last?.replyTo?.deleted == true && history.last?.replyTo?.text == "")
        #expect(try await club.alice.search("hunter2", in: nil, limit: 5).isEmpty)
        #expect(try await club.alice.search("secret", in: nil, limit: 5).isEmpty)
    }

    @Test(arguments: StoreKind.all) func ownDeletesHaveAWindowAndDirectPeersCannotDeleteEachOther(_ kind: StoreKind) async throws {
        let club = try await Club(kind) { $0.deleteWindow = .seconds(600) }
        let daveID = try await club.dave.me().id
        let direct = try await club.alice.sendMessage(to: .user(daveID), text: "last in the list", clientID: nil)
        await expectError(.forbidden) { try await club.dave.deleteMessage(chat: direct.chatID, seq: direct.seq) }
        let list = try await club.dave.chats()
        #expect(list.first?.lastMessage?.text == "last in the list")
        _ = try await club.alice.deleteMessage(chat: direct.chatID, seq: direct.seq)
        let after = try await club.dave.chats()
        #expect(after.first?.lastMessage?.isDeleted == true && after.first?.lastMessage?.text == "")
        let late = try await club.say(club.carol, "old words")
        club.world.clock.advance(by: .seconds(601))
        await expectError(.tooLate) { try await club.carol.deleteMessage(chat: club.group.id, seq: late.seq) }
        // The owner is not bound by the window for others' messages.
        #expect(try await club.alice.deleteMessage(chat: club.group.id, seq: late.seq).isDeleted)
    }

    @Test(arguments: StoreKind.all) func theMediaOfADeletedMessageIsServedToNobody(_ kind: StoreKind) async throws {
        let club = try await Club(kind)
        let png = SampleMedia.png(width: 4, height: 4) { _, _ in [0, 128, 255, 255] }
        let file = club.world.folder.appendingPathComponent("shot.png")
        try png.write(to: file)
        let media = try await club.alice.uploadMedia(from: file, kind: .image, for: .chat(club.group.id), progress: nil)
        let sent = try await club.alice.sendMedia(to: .chat(club.group.id), media: media.id, caption: "look", clientID: nil)
        let copy = club.world.folder.appendingPathComponent("copy.png")
        #expect(try await club.bob.downloadMedia(media.id, to: copy, replace: true, progress: nil) == Int64(png.count))
        let tombstone = try await club.alice.deleteMessage(chat: club.group.id, seq: sent.seq)
        #expect(tombstone.media == nil && tombstone.kind == .text)
        await expectError(.unknownMedia) { try await club.bob.downloadMedia(media.id, to: copy, replace: true, progress: nil) }
        await expectError(.unknownMedia) { try await club.alice.downloadMedia(media.id, to: copy, replace: true, progress: nil) }
    }

    @Test(arguments: StoreKind.all) func repliesQuoteTheHeadOfTheOriginal(_ kind: StoreKind) async throws {
        let club = try await Club(kind)
        let carolEvents = EventRecorder(club.carol)
        let long = String(repeating: "word ", count: 30) + "end"
        let original = try await club.say(club.alice, long)
        let reply = try await club.bob.reply(to: original.seq, in: club.group.id, text: "agreed", clientID: nil)
        #expect(reply.replyTo?.seq == original.seq && reply.replyTo?.sender.handle == "alice")
        #expect(reply.replyTo?.text == String(long.prefix(ReplyQuote.headLength)) + "…")
        let live = await carolEvents.first(timeout: .seconds(120), where: Self.isMessage("agreed"))
        guard case .message(let event) = live else {
            Issue.record("carol did not get the reply")
            return
        }
        #expect(event.message.replyTo == reply.replyTo)
        #expect(try await club.carol.history(chat: club.group.id, limit: 1, before: nil).first?.replyTo == reply.replyTo)
        await expectError(.unknownMessage) { try await club.bob.reply(to: 99, in: club.group.id, text: "to what?", clientID: nil) }
        await expectError(.unknownMessage) { try await club.bob.reply(to: 0, in: club.group.id, text: "to what?", clientID: nil) }
        await expectError(.notMember) { try await club.dave.reply(to: original.seq, in: club.group.id, text: "hi", clientID: nil) }
        // A batch carries replies too, each with its quote.
        let batch = await club.bob.sendMessages([
            OutgoingText(to: .chat(club.group.id), text: "one", replyTo: original.seq),
            OutgoingText(to: .chat(club.group.id), text: "two", replyTo: reply.seq),
        ])
        #expect(batch.failure == nil)
        #expect(batch.sent.map { $0.replyTo?.seq } == [original.seq, reply.seq])
    }

    @Test(arguments: StoreKind.all) func reactionsAreOncePerEmojiCountedAndCapped(_ kind: StoreKind) async throws {
        let club = try await Club(kind)
        let aliceEvents = EventRecorder(club.alice)
        let message = try await club.say(club.alice, "ship it?")
        let chat = club.group.id
        #expect(try await club.bob.react(chat: chat, seq: message.seq, emoji: "👍") == [ReactionCount(emoji: "👍", count: 1)])
        #expect(try await club.bob.react(chat: chat, seq: message.seq, emoji: "👍") == [ReactionCount(emoji: "👍", count: 1)])
        #expect(try await club.carol.react(chat: chat, seq: message.seq, emoji: "👍").first?.count == 2)
        let told = await aliceEvents.count(2, timeout: .seconds(120)) { if case .reactionChanged = $0 { true } else { false } }
        #expect(told == 2)
        for bad in ["x", "👍👍", "", "ab", "\u{1B}"] {
            await expectError(.invalidArgument) { try await club.bob.react(chat: chat, seq: message.seq, emoji: bad) }
        }
        await expectError(.notMember) { try await club.dave.react(chat: chat, seq: message.seq, emoji: "👍") }
        await expectError(.unknownMessage) { try await club.bob.react(chat: chat, seq: 42, emoji: "👍") }
        let emoji = ["😀", "😁", "😂", "🤣", "😃", "😄", "😅", "😆", "😉", "😊", "😋", "😎", "😍", "😘", "🥰", "😗", "😙", "🙂", "🤗"]
        for face in emoji { _ = try await club.bob.react(chat: chat, seq: message.seq, emoji: face) }
        await expectError(.tooManyReactions) { try await club.bob.react(chat: chat, seq: message.seq, emoji: "🤩") }
        // One already there may still be added by others.
        #expect(try await club.alice.react(chat: chat, seq: message.seq, emoji: "😀").count == Limits.maxReactionsPerMessage)
        let after = try await club.carol.unreact(chat: chat, seq: message.seq, emoji: "👍")
        #expect(after.first == ReactionCount(emoji: "👍", count: 1))
        let history = try await club.carol.history(chat: chat, limit: 1, before: nil)
        #expect(history.first?.reactions.first == ReactionCount(emoji: "👍", count: 1))
        #expect(history.first?.reactions.count == Limits.maxReactionsPerMessage)
    }

    @Test(arguments: StoreKind.all) func topicsFollowTheGroupsRules(_ kind: StoreKind) async throws {
        let club = try await Club(kind)
        let bobEvents = EventRecorder(club.bob)
        await expectError(.forbidden) { try await club.bob.setTopic("bob's topic", in: club.group.id) }
        let set = try await club.alice.setTopic("  Swift on Linux  ", in: club.group.id)
        #expect(set.topic == "Swift on Linux")
        let told = await bobEvents.first(timeout: .seconds(120)) { if case .chatUpdated = $0 { true } else { false } }
        guard case .chatUpdated(let change) = told else {
            Issue.record("bob was not told")
            return
        }
        #expect(change.chat.topic == "Swift on Linux" && change.by.handle == "alice" && change.what == .topic)
        // Shown to whoever joins, and in the chat itself.
        #expect(try await club.dave.joinGroup(handle: "club").topic == "Swift on Linux")
        #expect(try await club.bob.chat(club.group.id).topic == "Swift on Linux")
        await expectError(.invalidText) { try await club.alice.setTopic(String(repeating: "t", count: 301), in: club.group.id) }
        await expectError(.invalidText) { try await club.alice.setTopic("two\nlines", in: club.group.id) }
        _ = try await club.alice.setGroupRules(in: club.group.id, anyoneSetsTopic: true, anyoneMentionsAll: nil)
        #expect(try await club.bob.setTopic("bob's now", in: club.group.id).topic == "bob's now")
        #expect(try await club.bob.setTopic(nil, in: club.group.id).topic == nil)
        let daveID = try await club.dave.me().id
        let direct = try await club.alice.sendMessage(to: .user(daveID), text: "hi", clientID: nil)
        await expectError(.notAGroup) { try await club.alice.setTopic("x", in: direct.chatID) }
        let outsider = try await club.world.signUp("erin")
        await expectError(.notMember) { try await outsider.setTopic("x", in: club.group.id) }
    }

    @Test(arguments: StoreKind.all) func typingReachesOtherMembersAtMostEveryFewSeconds(_ kind: StoreKind) async throws {
        let club = try await Club(kind)
        let aliceEvents = EventRecorder(club.alice)
        let bobEvents = EventRecorder(club.bob)
        try await club.bob.typing(in: club.group.id)
        try await club.bob.typing(in: club.group.id)
        try await club.carol.typing(in: club.group.id)
        // carol's event follows bob's second call: by then bob's second would have come.
        let isTyping = { (handle: String) in
            { (event: ChatEvent) in if case .typing(let t) = event { t.user.handle == handle } else { false } }
        }
        #expect(await aliceEvents.first(timeout: .seconds(120), where: isTyping("carol")) != nil)
        #expect(aliceEvents.events.filter(isTyping("bob")).count == 1)
        #expect(!bobEvents.events.contains(where: isTyping("bob")))
        club.world.clock.advance(by: .seconds(3))
        try await club.bob.typing(in: club.group.id)
        #expect(await aliceEvents.count(2, timeout: .seconds(120), where: isTyping("bob")) == 2)
        await expectError(.notMember) { try await club.dave.typing(in: club.group.id) }
        // Never stored: a resume does not bring them back.
        #expect(try await club.alice.history(chat: club.group.id, limit: 5, before: nil).isEmpty)
    }
}
