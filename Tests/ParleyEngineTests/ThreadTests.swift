import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Threads, on both stores: messages that hang off a root stay out of the chat's main
/// flow, the root carries the thread's count and title, each member has their own unread
/// count and following, and a thread's message is checked as any message is.
@Suite(.timeLimit(.minutes(10))) struct ThreadTests {
    @Test(arguments: StoreKind.all) func aThreadKeepsItsRepliesOutOfTheMainFlowAndCountsThemPerMember(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let dave = try await world.signUp("dave")
        let erin = try await world.signUp("erin")
        let group = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        for member in [bob, carol, dave, erin] { _ = try await member.joinGroup(handle: "ops", key: nil) }
        let erinEvents = EventRecorder(erin)

        let root = try await alice.sendMessage(to: .chat(group.id), text: "deploy friday?", clientID: nil)
        let opened = try await alice.openThread(chat: group.id, seq: root.seq, title: "deploy friday")
        #expect(opened.root == root.seq && opened.title == "deploy friday" && opened.replies == 0)
        #expect(opened.rootMessage?.text == "deploy friday?")
        // Its members keep their copy of its title.
        let named = await erinEvents.first { if case .threadUpdated = $0 { true } else { false } }
        if case .threadUpdated(let update) = named {
            #expect(update.root == root.seq && update.title == "deploy friday" && update.by.handle == "alice")
        } else {
            Issue.record("no thread_updated event: \(String(describing: named))")
        }
        let first = try await bob.sendToThread(chat: group.id, seq: root.seq, text: "yes", clientID: "b1", via: nil, alsoToChat: false)
        #expect(first.thread == root.seq)
        _ = try await bob.sendToThread(chat: group.id, seq: root.seq, text: "after lunch", clientID: nil, via: nil, alsoToChat: false)
        // Naming a message in the thread names the thread; @dave follows it by being mentioned.
        let third = try await carol.sendToThread(
            chat: group.id, seq: first.seq, text: "@dave can you?", clientID: nil, via: nil, alsoToChat: false)
        #expect(third.thread == root.seq)
        let main = try await alice.sendMessage(to: .chat(group.id), text: "lunch is here", clientID: nil)
        #expect(main.thread == nil)

        // The live event says which thread a message is in.
        let live = await erinEvents.first { if case .message(let m) = $0 { m.message.text == "@dave can you?" } else { false } }
        if case .message(let event) = live {
            #expect(event.message.thread == root.seq)
        } else {
            Issue.record("no event: \(String(describing: live))")
        }

        let mainFlow = try await alice.history(chat: group.id, flow: .main, limit: 50, before: nil)
        #expect(mainFlow.map(\.text) == ["deploy friday?", "lunch is here"])
        #expect(mainFlow.first?.threadHead == ThreadHead(title: "deploy friday", replies: 3, lastActivity: third.sentAt))
        #expect(
            try await erin.history(chat: group.id, flow: .thread(root.seq), limit: 50, before: nil).map(\.text) == [
                "yes", "after lunch", "@dave can you?",
            ])
        #expect(try await erin.history(chat: group.id, limit: 50, before: nil).count == 5, "every message, threads' too")
        // Search finds in a thread alone when asked to (in:#ops/1 in the shell).
        let inThread = try await erin.search(MessageSearch(words: "lunch", chat: group.id, limit: 10, thread: root.seq))
        #expect(inThread.map(\.message.text) == ["after lunch"])
        #expect(try await erin.search(MessageSearch(words: "lunch", chat: group.id, limit: 10)).count == 2)
        await expectError(.invalidArgument) { _ = try await erin.search(MessageSearch(words: "lunch", limit: 10, thread: root.seq)) }

        // Following: the root's author, those who posted and those mentioned; not erin.
        #expect(try await alice.thread(chat: group.id, root: root.seq).following == .following)
        #expect(try await alice.thread(chat: group.id, root: root.seq).unread == 3)
        #expect(try await bob.thread(chat: group.id, root: root.seq).unread == 1, "his own are read")
        #expect(try await dave.thread(chat: group.id, root: root.seq).following == .following)
        #expect(try await erin.thread(chat: group.id, root: root.seq).following == ThreadFollowing.none)
        #expect(try await erin.followedThreads(limit: 10).isEmpty)
        let followed = try await dave.followedThreads(limit: 10)
        #expect(followed.map(\.root) == [root.seq] && followed.first?.unread == 3 && followed.first?.title == "deploy friday")
        #expect(followed.first?.mentions == 1, "one names @dave")
        #expect(try await alice.threads(in: group.id, limit: 10).map(\.replies) == [3])

        #expect(try await alice.markThreadRead(chat: group.id, root: root.seq, upTo: third.seq).unread == 0)
        // A mute holds when the muted member is mentioned again; erin follows by choice.
        #expect(try await dave.setFollowing(.muted, chat: group.id, root: root.seq).following == .muted)
        _ = try await erin.setFollowing(.following, chat: group.id, root: root.seq)
        _ = try await carol.sendToThread(chat: group.id, seq: root.seq, text: "@dave ping", clientID: nil, via: nil, alsoToChat: false)
        #expect(try await dave.thread(chat: group.id, root: root.seq).following == .muted)
        #expect(try await erin.followedThreads(limit: 10).first?.unread == 4)
        #expect(try await alice.thread(chat: group.id, root: root.seq).unread == 1)

        // A reply to a message in a thread goes into that thread; also-to-chat shows in both.
        let answer = try await erin.reply(to: first.seq, in: group.id, text: "me too", clientID: nil)
        #expect(answer.thread == root.seq && answer.replyTo?.seq == first.seq)
        let shared = try await bob.sendToThread(
            chat: group.id, seq: root.seq, text: "done: shipped", clientID: nil, via: nil, alsoToChat: true)
        #expect(shared.alsoToChat)
        #expect(
            try await carol.history(chat: group.id, flow: .main, limit: 50, before: nil).map(\.text) == [
                "deploy friday?", "lunch is here", "done: shipped",
            ])
        #expect(
            try await carol.history(chat: group.id, flow: .thread(root.seq), limit: 2, before: nil).map(\.text) == [
                "me too", "done: shipped",
            ])
        // A retried send lands once.
        #expect(
            try await bob.sendToThread(chat: group.id, seq: root.seq, text: "yes", clientID: "b1", via: nil, alsoToChat: false).id
                == first.id)
        #expect(try await alice.thread(chat: group.id, root: root.seq).replies == 6)

        // A deleted message keeps its place and leaves the unread count.
        _ = try await carol.deleteMessage(chat: group.id, seq: third.seq)
        let thread = try await erin.history(chat: group.id, flow: .thread(root.seq), limit: 50, before: nil)
        #expect(thread.first { $0.seq == third.seq }?.isDeleted == true)
        let davesThread = try await dave.thread(chat: group.id, root: root.seq)
        #expect(davesThread.unread == 5 && davesThread.mentions == 1, "one of the two that name @dave was deleted: \(davesThread)")
        // The chat list counts the main flow: the root, the lunch line and what went to both.
        let daves = try #require(try await dave.chats().first { $0.chat.id == group.id })
        #expect(daves.unread == 3 && daves.mentions == 0, "the mentions of @dave were in the thread: \(daves)")
        // Posting in a thread reads the thread, not the chat: erin still has the main flow's lines unread.
        #expect(try await erin.chats().first { $0.chat.id == group.id }?.unread == 3)
    }

    @Test(arguments: StoreKind.all) func aThreadsMessageIsCheckedAsAnyMessageIs(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let group = try await alice.createGroup(handle: "ops", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "ops", key: nil)
        let root = try await alice.sendMessage(to: .chat(group.id), text: "question", clientID: nil)

        await expectError(.unknownMessage) {
            _ = try await bob.sendToThread(chat: group.id, seq: 99, text: "x", clientID: nil, via: nil, alsoToChat: false)
        }
        await expectError(.unknownMessage) { _ = try await bob.thread(chat: group.id, root: root.seq) }
        await expectError(.notMember) {
            _ = try await carol.sendToThread(chat: group.id, seq: root.seq, text: "x", clientID: nil, via: nil, alsoToChat: false)
        }
        await expectError(.notMember) { _ = try await carol.threads(in: group.id, limit: 10) }
        await expectError(.invalidArgument) { _ = try await bob.threads(in: group.id, limit: 0) }
        await expectError(.invalidArgument) {
            _ = try await bob.openThread(chat: group.id, seq: root.seq, title: String(repeating: "x", count: 101))
        }
        _ = try await alice.setGroupRules(in: group.id, GroupRulesChange(moderated: true))
        await expectError(.moderated) {
            _ = try await bob.sendToThread(chat: group.id, seq: root.seq, text: "x", clientID: nil, via: nil, alsoToChat: false)
        }
        _ = try await alice.setGroupRules(in: group.id, GroupRulesChange(moderated: false))
        // A title is its root's author's or an admin's to change once it has one.
        _ = try await bob.openThread(chat: group.id, seq: root.seq, title: "the question")
        await expectError(.forbidden) { _ = try await bob.openThread(chat: group.id, seq: root.seq, title: "bob's") }
        #expect(try await alice.openThread(chat: group.id, seq: root.seq, title: "").title == nil)
        #expect(try await bob.threads(in: group.id, limit: 10).map(\.root) == [root.seq])
        #expect(try await bob.markThreadRead(chat: group.id, root: root.seq, upTo: 1_000_000).unread == 0)
        await expectError(.invalidArgument) { _ = try await bob.markThreadRead(chat: group.id, root: root.seq, upTo: -1) }
    }
}
