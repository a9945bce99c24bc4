import Foundation
import GRDB
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct MessageTests {
    @Test(arguments: StoreKind.all) func sameClientIDFromTwentyTasksStoresOneMessage(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "g1", title: nil, isPublic: true)
        let ids = try await withThrowingTaskGroup(of: MessageID.self) { tasks in
            for _ in 0..<20 {
                tasks.addTask { try await alice.sendMessage(to: .chat(group.id), text: "once", clientID: "c-42").id }
            }
            return try await tasks.reduce(into: Set<MessageID>()) { $0.insert($1) }
        }
        #expect(ids.count == 1)
        #expect(try await alice.history(chat: group.id, limit: 50, before: nil).count == 1)
        // A later retry returns the original too.
        let retry = try await alice.sendMessage(to: .chat(group.id), text: "once", clientID: "c-42")
        #expect(retry.id == ids.first)
        #expect(retry.seq == 1)
    }

    /// Client ids and plugin names travel to PostgreSQL inside array literals: quotes,
    /// backslashes, commas, braces and the word NULL must come back as they were sent
    /// (a plugin's name is plainer: the word NULL, dots, dashes).
    @Test(arguments: StoreKind.all) func clientIDsAndViasWithArraySyntaxInThemComeBackAsSent(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "g1", title: nil, isPublic: true)
        let odd = [#"a "quoted" \\ back,slash"#, "{NULL}", "NULL", #"\"#, "é , }{"]
        let plugins = ["NULL", "Null", "a.b", "x-y_z+1", "dice"]
        for (index, clientID) in odd.enumerated() {
            let via = plugins[index]
            let sent = try await alice.sendMessage(to: .chat(group.id), text: "t\(index)", clientID: clientID, via: via, replyTo: nil)
            #expect(sent.clientID == clientID)
            #expect(sent.via == .plugin(via))
            let retried = try await alice.sendMessage(to: .chat(group.id), text: "t\(index)", clientID: clientID, via: via, replyTo: nil)
            #expect(retried.id == sent.id)
        }
        let stored = try await alice.history(chat: group.id, limit: 50, before: nil)
        #expect(Set(stored.compactMap(\.clientID)) == Set(odd))
        #expect(Set(stored.compactMap(\.via)) == Set(plugins.map(Provenance.plugin)))
    }

    @Test(arguments: StoreKind.all) func tenWritersGetGaplessSequenceNumbers(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let owner = try await world.signUp("owner")
        let group = try await owner.createGroup(handle: "busy", title: nil, isPublic: true)
        var writers: [EngineSession] = []
        for index in 0..<10 {
            let writer = try await world.signUp("writer\(index)")
            _ = try await writer.joinGroup(handle: "busy")
            writers.append(writer)
        }
        let seqs = try await withThrowingTaskGroup(of: [Int64].self) { tasks in
            for writer in writers {
                tasks.addTask {
                    var seqs: [Int64] = []
                    for index in 0..<20 {
                        seqs.append(try await writer.sendMessage(to: .chat(group.id), text: "m\(index)", clientID: nil).seq)
                    }
                    return seqs
                }
            }
            return try await tasks.reduce(into: [Int64]()) { $0 += $1 }
        }
        #expect(seqs.sorted() == Array(1...200))
        let stored = try await owner.history(chat: group.id, limit: 500, before: nil).map(\.seq)
        #expect(stored == Array(1...200))
    }

    @Test(arguments: StoreKind.all) func historyPagesBackwards(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "pages", title: nil, isPublic: true)
        for index in 1...25 { _ = try await alice.sendMessage(to: .chat(group.id), text: "m\(index)", clientID: nil) }
        #expect(try await alice.history(chat: group.id, limit: 10, before: nil).map(\.seq) == Array(16...25))
        #expect(try await alice.history(chat: group.id, limit: 10, before: 16).map(\.seq) == Array(6...15))
        #expect(try await alice.history(chat: group.id, limit: 10, before: 6).map(\.seq) == Array(1...5))
        #expect(try await alice.history(chat: group.id, limit: 10, before: 1).isEmpty)
        await expectError(.invalidArgument) { try await alice.history(chat: group.id, limit: 0, before: nil) }
        await expectError(.invalidArgument) { try await alice.history(chat: group.id, limit: 501, before: nil) }
    }

    @Test(arguments: StoreKind.all) func textLimitsAreEnforcedAndStoreNothing(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let group = try await alice.createGroup(handle: "limits", title: nil, isPublic: true)
        let cases: [(String, ErrorCode)] = [
            ("", .emptyText), ("   \n\t ", .emptyText),
            (String(repeating: "x", count: 4001), .textTooLong),
            ("bell \u{7}", .invalidText), ("esc \u{1B}[2J", .invalidText), ("c1 \u{9B}", .invalidText), ("del \u{7F}", .invalidText),
        ]
        for (text, code) in cases {
            await expectError(code) { try await alice.sendMessage(to: .chat(group.id), text: text, clientID: nil) }
            await expectError(code) { try await alice.sendMessage(to: .user(try await bob.me().id), text: text, clientID: nil) }
        }
        await expectError(.invalidArgument) { try await alice.sendMessage(to: .chat(group.id), text: "ok", clientID: "") }
        await expectError(.invalidArgument) {
            try await alice.sendMessage(to: .chat(group.id), text: "ok", clientID: String(repeating: "c", count: 129))
        }
        #expect(try await alice.history(chat: group.id, limit: 10, before: nil).isEmpty)
        #expect(try await bob.chats().isEmpty)
        // The limits themselves are allowed.
        let longest = try await alice.sendMessage(to: .chat(group.id), text: String(repeating: "é", count: 4000), clientID: nil)
        #expect(longest.text.count == 4000)
        #expect(try await alice.sendMessage(to: .chat(group.id), text: "a\n\tb", clientID: nil).text == "a\n\tb")
    }

    @Test(arguments: StoreKind.all) func searchFindsWordsInMyChatsNewestFirst(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let eve = try await world.signUp("eve")
        let swift = try await alice.createGroup(handle: "swift", title: nil, isPublic: true)
        let rust = try await alice.createGroup(handle: "rust", title: nil, isPublic: true)
        _ = try await alice.sendMessage(to: .chat(swift.id), text: "Swift concurrency is neat", clientID: nil)
        _ = try await alice.sendMessage(to: .chat(rust.id), text: "async traits and concurrency", clientID: nil)
        _ = try await alice.sendMessage(to: .chat(swift.id), text: "actors make concurrency safe", clientID: nil)
        _ = try await alice.sendMessage(to: .user(try await bob.me().id), text: "concurrency talk tomorrow?", clientID: nil)
        _ = try await eve.createGroup(handle: "eve", title: nil, isPublic: false)
        let all = try await alice.search("concurrency", in: nil, limit: 10).map(\.text)
        #expect(
            all == [
                "concurrency talk tomorrow?", "actors make concurrency safe", "async traits and concurrency", "Swift concurrency is neat",
            ])
        #expect(try await alice.search("concurrency", in: swift.id, limit: 10).count == 2)
        #expect(try await alice.search("CONCURRENCY safe", in: nil, limit: 10).map(\.text) == ["actors make concurrency safe"])
        #expect(try await alice.search("\"unbalanced AND (", in: nil, limit: 10).isEmpty)
        #expect(try await bob.search("concurrency", in: nil, limit: 10).count == 1)
        #expect(try await eve.search("concurrency", in: nil, limit: 10).isEmpty)
        await expectError(.notMember) { try await eve.search("concurrency", in: swift.id, limit: 10) }
        await expectError(.invalidArgument) { try await alice.search("  ", in: nil, limit: 10) }
        // The last word is a prefix, and so is any word ending in *.
        #expect(try await alice.search("concurr", in: swift.id, limit: 10).count == 2)
        #expect(try await alice.search("act* concurrency", in: nil, limit: 10).map(\.text) == ["actors make concurrency safe"])
        #expect(try await alice.search("act concurrency", in: nil, limit: 10).isEmpty, "only the last word and starred ones are prefixes")
        await expectError(.invalidArgument) { try await alice.search("* **", in: nil, limit: 10) }
    }

    /// A database error inside the writer's transaction (here a trigger the test adds to
    /// the file) refuses that send and rolls its commit back: nothing of it is stored, and
    /// the next send commits with the next sequence number.
    @Test func aDatabaseErrorWhileStoringRollsTheCommitBackAndTheNextSendLands() async throws {
        let world = try TestWorld()
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "rollback", title: nil, isPublic: true)
        let first = try await alice.sendMessage(to: .chat(group.id), text: "before", clientID: "c-1")
        // A second connection to the file: it waits its turn while the engine's writer
        // (or a background write of last-seen times) holds the lock, instead of failing.
        var waiting = Configuration()
        waiting.busyMode = .timeout(120)
        try await DatabaseQueue(path: world.databasePath, configuration: waiting).write { db in
            try db.execute(
                sql: """
                    CREATE TRIGGER refuse_boom BEFORE UPDATE OF last_seq ON chat WHEN NEW.last_text = 'boom'
                    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                    """)
        }
        await #expect(throws: (any Error).self) { try await alice.sendMessage(to: .chat(group.id), text: "boom", clientID: "c-2") }
        let next = try await alice.sendMessage(to: .chat(group.id), text: "after", clientID: "c-3")
        #expect(next.seq == first.seq + 1)
        #expect(try await alice.history(chat: group.id, limit: 10, before: nil).map(\.text) == ["before", "after"])
        // The refused message's client id was not taken either: a retry of it is a new send.
        let retried = try await alice.sendMessage(to: .chat(group.id), text: "boom again", clientID: "c-2")
        #expect(retried.seq == next.seq + 1)
        let list = try #require(try await alice.chats().first { $0.chat.id == group.id })
        #expect(list.lastMessage?.text == "boom again")
    }

    /// Sends from many tasks at once reach the store in batches: two chats, mentions,
    /// replies, one client id retried five times and a sender who is not a member, all
    /// at the same moments. Each message is stored once, numbered without gaps in its
    /// chat in the order its sender sent it, with its mentions, its reply, its sender's
    /// read marker and one event.
    @Test(arguments: StoreKind.all) func concurrentSendsToTwoChatsLandWhole(_ kind: StoreKind) async throws {
        let club = try await ConversationTests.Club(kind)
        let other = try await club.alice.createGroup(handle: "other", title: nil, isPublic: true)
        _ = try await club.bob.joinGroup(handle: "other")
        let first = try await club.say(club.alice, "first")
        let carolEvents = EventRecorder(club.carol)
        let senders = [club.alice, club.bob, club.carol]
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (index, sender) in senders.enumerated() {
                tasks.addTask {
                    for round in 0..<15 {
                        _ = try await sender.sendMessage(
                            to: .chat(club.group.id), text: "club \(index)-\(round) @carol", clientID: Self.oddClientID(index, round),
                            via: Self.oddVia(round), replyTo: round == 0 ? first.seq : nil)
                    }
                }
            }
            for sender in [club.alice, club.bob] {
                tasks.addTask {
                    for round in 0..<15 {
                        _ = try await sender.sendMessage(to: .chat(other.id), text: "other \(round) @bob", clientID: nil)
                    }
                }
            }
            for _ in 0..<5 {
                tasks.addTask {
                    _ = try await club.alice.sendMessage(
                        to: .chat(club.group.id), text: "retried", clientID: "same", via: nil, replyTo: nil)
                }
            }
            tasks.addTask {
                for _ in 0..<10 {
                    await expectError(.notMember) {
                        try await club.dave.sendMessage(to: .chat(club.group.id), text: "let me in", clientID: nil)
                    }
                }
            }
            try await tasks.waitForAll()
        }

        let clubHistory = try await club.alice.history(chat: club.group.id, limit: 500, before: nil)
        #expect(clubHistory.map(\.seq) == Array(1...47))
        #expect(clubHistory.filter { $0.text == "retried" }.count == 1)
        #expect(!clubHistory.contains { $0.text == "let me in" })
        for index in 0..<3 {
            let theirs = clubHistory.filter { $0.text.hasPrefix("club \(index)-") }
            #expect(theirs.map(\.text) == (0..<15).map { "club \(index)-\($0) @carol" })
            #expect(theirs.map(\.clientID) == (0..<15).map { Self.oddClientID(index, $0) })
            #expect(theirs.map(\.via) == (0..<15).map { Self.oddVia($0).map(Provenance.plugin) })
            #expect(theirs.first?.replyTo?.seq == first.seq)
            #expect(theirs.dropFirst().allSatisfy { $0.replyTo == nil })
        }
        // Nobody mentions themself: alice's and bob's 30 mention carol.
        #expect(try await club.carol.mentions(limit: 100).count == 30)
        let otherHistory = try await club.bob.history(chat: other.id, limit: 500, before: nil)
        #expect(otherHistory.map(\.seq) == Array(1...30))
        #expect(otherHistory.filter { $0.mentions == ["bob"] }.count == 15)
        // A sender has read up to their own last message.
        let bob = try await club.bob.me().id
        let bobsLast = try #require(otherHistory.last { $0.sender.id == bob }?.seq)
        let bobsOther = try await club.bob.chats().first { $0.chat.id == other.id }
        #expect(bobsOther?.unread == 30 - Int(bobsLast))

        // carol hears every message but her own once, and what each sender sent one after
        // another in that order (this engine's bus orders events across senders only with a
        // store's journal).
        let carol = try await club.carol.me().id
        let others = clubHistory.filter { $0.seq > first.seq && $0.sender.id != carol }
        let isClubMessage: (ChatEvent) -> Bool = {
            if case .message(let data) = $0 { data.message.chatID == club.group.id && data.message.seq > first.seq } else { false }
        }
        #expect(await carolEvents.count(others.count, where: isClubMessage) == others.count)
        let heard = carolEvents.events.filter(isClubMessage).compactMap { if case .message(let data) = $0 { data.message } else { nil } }
        #expect(heard.count == others.count)
        for sender in [club.alice, club.bob] {
            let id = try await sender.me().id
            let inOrder: (Message) -> Bool = { $0.sender.id == id && $0.text != "retried" }
            #expect(heard.filter(inOrder).map(\.seq) == others.filter(inOrder).map(\.seq))
        }
    }

    /// Client ids and vias with array syntax in them, for the batch's array literals.
    static func oddClientID(_ sender: Int, _ round: Int) -> String { #"c\#(sender)-\#(round) "{NULL}",\"# }

    static func oddVia(_ round: Int) -> String? { round.isMultiple(of: 2) ? "NULL" : nil }
}
