import Foundation
import ParleyCore
import ParleyEngine
import ParleyStore
import ParleyTesting
import Testing

/// Erasure on both stores: a person deletes their account with its password, or an
/// operator erases one; it can't sign in, its groups go on without it, its files go, its
/// messages stay as from "Deleted user" or go as the server says, and its handle is held
/// back for the hold period.
@Suite(.timeLimit(.minutes(10))) struct ErasureTests {
    @Test(arguments: StoreKind.all) func aPersonDeletesTheirAccount(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.admins = ["oscar"] }
        let oscar = try await world.signUp("oscar")
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let team = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "team", key: nil)
        let said = try await alice.sendMessage(to: .chat(team.id), text: "hello from alice", clientID: nil)
        let notes = world.folder.appendingPathComponent("notes.txt")
        try Data("alice's notes\n".utf8).write(to: notes)
        let file = try await alice.uploadMedia(from: notes, kind: .file, for: .chat(team.id), progress: nil)
        let withFile = try await alice.sendMedia(
            to: .chat(team.id), media: file.id, caption: "my notes", name: "notes.txt", clientID: nil, via: nil)
        let bot = try await alice.createBot(NewBot(handle: "alices-bot", displayName: "Bot", password: "bot-pass-1234"))
        let token = try await alice.createBotToken(for: bot.id, name: "ci").secret
        var events = bob.events.makeAsyncIterator()

        await expectError(.badCredentials) { try await alice.deleteAccount(password: "not it") }
        await expectError(.badCredentials) { try await alice.deleteAccount(password: nil) }
        await expectError(.forbidden) { try await oscar.deleteAccount(password: TestWorld.password(of: "oscar")) }
        try await alice.deleteAccount(password: TestWorld.password(of: "alice"))

        // bob hears alice go and takes #team over.
        var heard: [String] = []
        while heard.count < 2, let event = await events.next() {
            switch event {
            case .memberLeft(let change): heard.append("left \(change.reason ?? "")")
            case .roleChanged(let change): heard.append("\(change.user.handle) \(change.role?.rawValue ?? "")")
            default: continue
            }
        }
        #expect(heard == ["left account deleted", "bob owner"])
        await expectError(.badCredentials) { _ = try await world.signIn("alice") }
        await expectError(.invalidToken) { _ = try await world.engine.connect().signIn(botToken: token) }
        let history = try await bob.history(chat: team.id, limit: 10, before: nil)
        let kept = try #require(history.first { $0.seq == said.seq })
        #expect(kept.text == "hello from alice" && kept.sender.displayName == "Deleted user" && kept.sender.handle.hasPrefix("deleted-"))
        let caption = try #require(history.first { $0.seq == withFile.seq })
        #expect(caption.media == nil && caption.text == "my notes")
        let saved = world.folder.appendingPathComponent("fetched.txt")
        await expectError(.unknownMedia) { _ = try await bob.downloadMedia(file.id, to: saved, replace: true, progress: nil) }
        #expect(try await world.store.user(handle: "alice") == nil)

        // The handle is held: no account, bot or guest takes it until the hold is over.
        let newcomer = world.engine.connect()
        let again = Registration(email: "new-alice@example.com", password: "password-new", displayName: "New Alice", handle: "alice")
        await expectError(.handleTaken) { _ = try await newcomer.register(again) }
        await expectError(.handleTaken) { _ = try await world.engine.connect().signInAsGuest(nick: "alice") }
        await expectError(.handleTaken) {
            _ = try await bob.createBot(NewBot(handle: "alice", displayName: "A", password: "bot-pass-1234"))
        }
        world.clock.advance(by: .seconds(31 * 86400))
        _ = try await world.engine.connect().register(again)
        let log = try await oscar.audit(chat: nil, actor: "alice", before: nil, limit: 10)
        #expect(log.map { "\($0.action.rawValue) \($0.target)" } == ["delete_account @alice", "delete_account @alices-bot"])
    }

    @Test(arguments: StoreKind.all) func anExportHoldsExactlyTheAccountsData(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.admins = ["oscar"] }
        let oscar = try await world.signUp("oscar")
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let team = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "team", key: nil)
        let bobID = try await bob.me().id
        var mine: [String] = []
        for index in 0..<1002 {
            mine.append("alice \(index)")
            _ = try await alice.sendMessage(to: .chat(team.id), text: "alice \(index)", clientID: nil)
        }
        let typo = try await alice.sendMessage(to: .chat(team.id), text: "a typo", clientID: nil)
        _ = try await alice.deleteMessage(chat: team.id, seq: typo.seq)
        let direct = try await alice.sendMessage(to: .user(bobID), text: "psst bob", clientID: nil)
        mine.append("psst bob")
        let bobs = try await bob.sendMessage(to: .chat(team.id), text: "bob's own", clientID: nil)
        _ = try await alice.react(chat: team.id, seq: bobs.seq, emoji: "👍")
        _ = try await bob.react(chat: team.id, seq: bobs.seq, emoji: "🎉")
        let notes = world.folder.appendingPathComponent("notes.txt")
        try Data("alice's notes\n".utf8).write(to: notes)
        let file = try await alice.uploadMedia(from: notes, kind: .file, for: .chat(team.id), progress: nil)
        _ = try await alice.sendMedia(to: .chat(team.id), media: file.id, caption: "notes", name: "notes.txt", clientID: nil, via: nil)
        mine.append("notes")
        _ = try await bob.uploadMedia(from: notes, kind: .file, for: .chat(team.id), progress: nil)

        var export = try await alice.exportAccount(handle: nil, after: nil)
        var next = export.next
        #expect(export.messages.count == AccountExport.pageSize && next != nil)
        while let after = next {
            let page = try await alice.exportAccount(handle: nil, after: after)
            #expect(page.memberships.isEmpty && page.sessions.isEmpty, "later pages hold messages only")
            export.messages += page.messages
            next = page.next
        }
        #expect(export.user.handle == "alice" && export.user.email == "alice@example.com")
        #expect(export.messages.map(\.text) == mine, "every message of hers, oldest first, none of anyone else's, not the deleted one")
        #expect(Set(export.memberships.map(\.chat.id)) == [team.id, direct.chatID])
        #expect(export.memberships.first { $0.chat.id == team.id }?.role == .owner)
        #expect(export.reactions.map(\.emoji) == ["👍"])
        #expect(export.uploads.map(\.id) == [file.id])
        #expect(export.sessions.count == 1 && export.sessions.first?.current == true)

        await expectError(.forbidden) { _ = try await bob.exportAccount(handle: "alice", after: nil) }
        let byOperator = try await oscar.exportAccount(handle: "@bob", after: nil)
        #expect(byOperator.user.handle == "bob" && byOperator.messages.map(\.text) == ["bob's own"])
        #expect(byOperator.sessions.allSatisfy { !$0.current })
        #expect(try await oscar.audit(chat: nil, actor: nil, before: nil, limit: 1).first?.action == .exportAccount)
    }

    @Test(arguments: StoreKind.all) func anOperatorErasesAndTheServerDeletesTheMessages(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) {
            $0.admins = ["oscar"]
            $0.erasedMessages = .delete
        }
        let oscar = try await world.signUp("oscar")
        let alice = try await world.signUp("alice")
        let spammer = try await world.signUp("spammer")
        let team = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        _ = try await spammer.joinGroup(handle: "team", key: nil)
        let spam = try await spammer.sendMessage(to: .chat(team.id), text: "buy cheap watches", clientID: nil)
        await expectError(.forbidden) { try await alice.eraseAccount(handle: "spammer", reason: nil) }
        await expectError(.forbidden) { try await oscar.eraseAccount(handle: "oscar", reason: nil) }
        try await oscar.eraseAccount(handle: "@spammer", reason: "by request")
        let history = try await alice.history(chat: team.id, limit: 10, before: nil)
        let gone = try #require(history.first { $0.seq == spam.seq })
        #expect(gone.deletedAt != nil && gone.text.isEmpty)
        #expect(try await alice.search("watches", in: team.id, limit: 10).isEmpty)
        #expect(try await alice.members(chat: team.id).map(\.user.handle) == ["alice"])
        await expectError(.badCredentials) { _ = try await world.signIn("spammer") }
        let entry = try #require(try await oscar.audit(chat: nil, actor: nil, before: nil, limit: 1).first)
        #expect(entry.action == .deleteAccount && entry.actor == "oscar" && entry.target == "@spammer" && entry.reason == "by request")
    }

    /// `deleted-ID` is what an erased account leaves: nobody may take it (or any
    /// `deleted-` handle) as a person, a bot or a guest, and an account that took one
    /// before the rule blocks no erasure: the victim's and an operator's both complete.
    @Test(arguments: StoreKind.all) func nobodyCanBlockAnErasureBySquattingItsPlaceholder(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.admins = ["oscar"] }
        let oscar = try await world.signUp("oscar")
        let victim = try await world.signUp("victim")
        let other = try await world.signUp("other")
        let mallory = try await world.signUp("mallory")
        let (victimID, otherID) = (try await victim.me().id.rawValue, try await other.me().id.rawValue)
        for handle in ["deleted-\(victimID)", "Deleted-\(otherID)", "deleted-x", "admin", "Operator", "hook", "parley", "NickServ"] {
            let registration = Registration(
                email: "\(handle.lowercased())@example.com", password: "password-squat", displayName: "Squatter", handle: handle)
            await expectError(.invalidHandle) { _ = try await world.engine.connect().register(registration) }
            await expectError(.invalidHandle) {
                _ = try await mallory.createBot(NewBot(handle: handle, displayName: "Squat", password: "bot-pass-1234"))
            }
            await expectError(.invalidHandle) { _ = try await world.engine.connect().signInAsGuest(nick: handle) }
        }
        // Accounts that took the placeholders before the rule (written to the store as an
        // older server did) are still there when the erasures come.
        for id in [victimID, otherID] {
            _ = try await world.store.createUser(
                NewUser(
                    email: "squat\(id)@example.com", handle: "deleted-\(id)", displayName: "Squatter", passwordHash: nil, isBot: false,
                    createdAt: world.clock.now))
        }
        // They keep working, and the operators are told of them.
        let listed = try await world.engine.namesBreakingRules()
        #expect(listed.contains("@deleted-\(victimID): the handle is reserved") && listed.count == 2, "\(listed)")
        try await victim.deleteAccount(password: TestWorld.password(of: "victim"))
        try await oscar.eraseAccount(handle: "other", reason: "by request")
        #expect(try await world.store.user(handle: "victim") == nil)
        #expect(try await world.store.user(handle: "other") == nil)
        for id in [victimID, otherID] {
            let placeholder = try #require(try await world.store.user(id: UserID(id)))
            #expect(placeholder.displayName == "Deleted user" && placeholder.handle.hasPrefix("deleted-\(id)-"), "\(placeholder.handle)")
            #expect(try await world.store.user(handle: "deleted-\(id)")?.displayName == "Squatter")
        }
    }
}
