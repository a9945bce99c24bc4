import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// The server operators' tools in the engine, on both stores: suspension (sessions end
/// with the reason, sign-in refused, bots with their owner), server bans by account,
/// handle pattern and address range, redaction, and the audit log of them and of groups'
/// owners and admins.
@Suite(.timeLimit(.minutes(10))) struct OperatorTests {
    @Test(arguments: StoreKind.all) func suspensionEndsSessionsAndRefusesSignIn(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.admins = ["oscar"] }
        let oscar = try await world.signUp("oscar")
        let bob = try await world.signUp("bob")
        let bot = try await bob.createBot(NewBot(handle: "bobs-bot", displayName: "Bob's bot", password: "bot-pass-1234"))
        let token = try await bob.createBotToken(for: bot.id, name: "ci").secret
        let (endings, ended) = AsyncStream<String>.makeStream()
        let live = world.engine.connect(address: "198.51.100.7", deliver: { _ in }, ended: { ended.yield("\($0.code):\($0.message)") })
        let signed = try await live.signIn(login: "bob", password: TestWorld.password(of: "bob"))

        await expectError(.forbidden) { _ = try await bob.suspend(handle: "oscar", reason: "no") }
        await expectError(.forbidden) { _ = try await oscar.suspend(handle: "oscar", reason: "myself") }
        await expectError(.invalidArgument) { _ = try await oscar.suspend(handle: "bob", reason: "  ") }
        await expectError(.unknownUser) { _ = try await oscar.suspend(handle: "nobody", reason: "spam") }
        let suspension = try await oscar.suspend(handle: "@bob", reason: "links in every group")
        #expect(suspension.user.handle == "bob" && suspension.by == "oscar")
        let said = "account_suspended:@bob is suspended by the server's operators: links in every group"
        var told = endings.makeAsyncIterator()
        #expect(await told.next() == said, "the live session is told, with the reason")

        await expectError(.accountSuspended) { _ = try await world.signIn("bob") }
        await expectError(.accountSuspended) { _ = try await world.engine.connect().signIn(botToken: token) }
        await expectError(.invalidToken) { _ = try await world.engine.connect().resume(token: signed.token) }
        #expect(try await oscar.suspensions().map(\.user.handle).sorted() == ["bob", "bobs-bot"])

        await expectError(.unknownUser) { _ = try await oscar.reinstate(handle: "alice-who-is-not") }
        await expectError(.invalidArgument) { _ = try await oscar.reinstate(handle: "oscar") }
        #expect(try await oscar.reinstate(handle: "bob").map(\.handle).sorted() == ["bob", "bobs-bot"])
        _ = try await world.signIn("bob")
        _ = try await world.engine.connect().signIn(botToken: token)
        #expect(try await oscar.suspensions().isEmpty)
        let log = try await oscar.audit(chat: nil, actor: nil, before: nil, limit: 10)
        #expect(log.map(\.action) == [.reinstate, .suspend])
        #expect(log.last?.reason == "links in every group" && log.last?.target == "@bob" && log.last?.detail == "with 1 bots")
    }

    /// A hook posts as its maker: not while the maker is suspended, again once reinstated.
    @Test(arguments: StoreKind.all) func aSuspendedAccountsHooksStopPosting(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.admins = ["oscar"] }
        let oscar = try await world.signUp("oscar")
        let bob = try await world.signUp("bob")
        let group = try await bob.createGroup(handle: "deals", title: nil, isPublic: true)
        let made = try await bob.createHook(in: group.id, name: "feed", signingSecret: nil)
        let token = String(made.path.split(separator: "/").last ?? "")
        let plain = HookHeaders(contentType: "text/plain")
        _ = try await world.engine.postFromHook(token: token, body: Array("first".utf8), headers: plain, address: "127.0.0.1")
        _ = try await oscar.suspend(handle: "bob", reason: "spam feeds")
        do {
            _ = try await world.engine.postFromHook(token: token, body: Array("second".utf8), headers: plain, address: "127.0.0.1")
            Issue.record("a suspended account's hook posted")
        } catch let error as ParleyError {
            #expect(error.code == .accountSuspended && !error.message.contains("bob"), "\(error)")
        }
        _ = try await oscar.reinstate(handle: "bob")
        _ = try await world.engine.postFromHook(token: token, body: Array("third".utf8), headers: plain, address: "127.0.0.1")
        let bobAgain = try await world.signIn("bob")
        #expect(try await bobAgain.history(chat: group.id, limit: 10, before: nil).map(\.text) == ["first", "third"])
    }

    @Test(arguments: StoreKind.all) func serverBansRefuseAccountsPatternsAndRanges(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.admins = ["oscar"] }
        let oscar = try await world.signUp("oscar")
        _ = try await world.signUp("carol")
        _ = try await world.signUp("spammer1")
        func register(_ handle: String, from address: String) async throws {
            _ = try await world.engine.connect(address: address).register(
                Registration(email: "\(handle)@example.com", password: "password-\(handle)", displayName: nil, handle: handle))
        }
        func signIn(_ handle: String, from address: String) async throws {
            _ = try await world.engine.connect(address: address).signIn(login: handle, password: TestWorld.password(of: handle))
        }

        for bad in ["", "*", "**?", "a b", "300.1.1.1/8", "10.0.0.0/33", "fe80::1::2", String(repeating: "a", count: 65)] {
            await expectError(.invalidArgument) { _ = try await oscar.banServer(bad, reason: nil, duration: nil) }
        }
        await expectError(.invalidArgument) { _ = try await oscar.banServer("local/32", reason: nil, duration: nil) }
        let range = try await oscar.banServer("203.0.113.77/24", reason: "spam wave", duration: nil)
        #expect(range.kind == .address && range.pattern == "203.0.113.0/24")
        let pattern = try await oscar.banServer("Spam*", reason: nil, duration: .seconds(3600))
        #expect(pattern.kind == .handle && pattern.pattern == "spam*")
        let v6 = try await oscar.banServer("2001:db8::/32", reason: nil, duration: nil)
        #expect(v6.pattern == "2001:db8:0:0:0:0:0:0/32")

        await expectError(.serverBanned) { try await register("dave", from: "203.0.113.5") }
        await expectError(.serverBanned) { try await signIn("carol", from: "203.0.113.200") }
        await expectError(.serverBanned) { try await signIn("carol", from: "::ffff:203.0.113.9") }
        await expectError(.serverBanned) { try await signIn("carol", from: "2001:db8:1::5") }
        await expectError(.serverBanned) { try await signIn("spammer1", from: "192.0.2.1") }
        await expectError(.serverBanned) { try await register("spammer2", from: "192.0.2.1") }
        try await signIn("carol", from: "203.0.114.5")
        try await register("dave", from: "192.0.2.1")

        // An account ban ends its sessions; an operator is never refused by a pattern.
        let (endings, ended) = AsyncStream<ErrorCode>.makeStream()
        let carol = world.engine.connect(address: "192.0.2.9", deliver: { _ in }, ended: { ended.yield($0.code) })
        _ = try await carol.signIn(login: "carol", password: TestWorld.password(of: "carol"))
        _ = try await oscar.banServer("@carol", reason: "abuse", duration: nil)
        var told = endings.makeAsyncIterator()
        #expect(await told.next() == .serverBanned)
        await expectError(.serverBanned) { try await signIn("carol", from: "192.0.2.1") }
        _ = try await oscar.banServer("osc*", reason: nil, duration: nil)
        try await signIn("oscar", from: "203.0.113.1")

        #expect(try await oscar.serverBans().map(\.pattern) == ["203.0.113.0/24", "spam*", "2001:db8:0:0:0:0:0:0/32", "carol", "osc*"])
        _ = try await oscar.unbanServer("203.0.113.0/24")
        _ = try await oscar.unbanServer(String(pattern.id))
        await expectError(.unknownBan) { _ = try await oscar.unbanServer("spam*") }
        await expectError(.serverBanned) { try await signIn("carol", from: "203.0.113.5") }
        try await register("spammer3", from: "203.0.113.6")
        // An expired ban refuses nobody.
        _ = try await oscar.banServer("dave", reason: nil, duration: .seconds(60))
        await expectError(.serverBanned) { try await signIn("dave", from: "192.0.2.1") }
        world.clock.advance(by: .seconds(61))
        try await signIn("dave", from: "192.0.2.1")
        let actions = try await oscar.audit(chat: nil, actor: "@oscar", before: nil, limit: 50).map(\.action)
        #expect(actions.filter { $0 == .serverBan }.count == 6 && actions.filter { $0 == .serverUnban }.count == 2)
    }
}

/// A redaction and the audit log of a group's moderation, on both stores.
@Suite(.timeLimit(.minutes(10))) struct RedactionTests {
    @Test(arguments: StoreKind.all) func redactionTakesDownAWindowMediaToo(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.admins = ["oscar"] }
        let oscar = try await world.signUp("oscar")
        let alice = try await world.signUp("alice")
        let spammer = try await world.signUp("spammer")
        let group = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        _ = try await spammer.joinGroup(handle: "team", key: nil)
        let early = try await spammer.sendMessage(to: .chat(group.id), text: "an honest question", clientID: nil)
        world.clock.advance(by: .seconds(3600))
        let start = world.clock.now
        let notes = world.folder.appendingPathComponent("spam.txt")
        try Data("buy now\n".utf8).write(to: notes)
        let file = try await spammer.uploadMedia(from: notes, kind: .file, for: .chat(group.id), progress: nil)
        let withMedia = try await spammer.sendMedia(
            to: .chat(group.id), media: file.id, caption: "", name: "spam.txt", clientID: nil, via: nil)
        var spam: [Int64] = [withMedia.seq]
        for index in 0..<250 { spam.append(try await spammer.sendMessage(to: .chat(group.id), text: "spam \(index)", clientID: nil).seq) }
        _ = try await spammer.sendMessage(to: .user(try await alice.me().id), text: "direct spam", clientID: nil)
        let kept = try await alice.sendMessage(to: .chat(group.id), text: "alice stays", clientID: nil)
        var events = alice.events.makeAsyncIterator()

        await expectError(.forbidden) { _ = try await alice.redact(handle: "spammer", from: nil, to: nil, reason: nil) }
        await expectError(.invalidArgument) {
            _ = try await oscar.redact(handle: "spammer", from: start, to: start.addingTimeInterval(-1), reason: nil)
        }
        let done = try await oscar.redact(handle: "@spammer", from: start, to: nil, reason: "spam wave")
        #expect(done.messages == 252 && done.media == 1)

        // Every member hears each go, by the operator, with the reason.
        var gone = Set<Int64>()
        while gone.count < 252, let event = await events.next() {
            if case .messageDeleted(let deleted) = event {
                #expect(deleted.by?.handle == "oscar" && deleted.reason == "spam wave")
                gone.insert(deleted.message.seq)
            }
        }
        #expect(Set(spam).isSubset(of: gone))
        let history = try await alice.history(chat: group.id, limit: 500, before: nil)
        #expect(history.first { $0.seq == early.seq }?.text == "an honest question", "before the window: kept")
        #expect(history.first { $0.seq == kept.seq }?.text == "alice stays")
        #expect(history.filter { spam.contains($0.seq) }.allSatisfy { $0.deletedAt != nil && $0.text.isEmpty && $0.media == nil })
        let saved = world.folder.appendingPathComponent("fetched.txt")
        await expectError(.unknownMedia) { _ = try await alice.downloadMedia(file.id, to: saved, replace: true, progress: nil) }
        #expect(try await alice.search("spam", in: group.id, limit: 10).isEmpty)
        let entry = try #require(try await oscar.audit(chat: nil, actor: nil, before: nil, limit: 1).first)
        #expect(entry.action == .redact && entry.target == "@spammer" && entry.reason == "spam wave")
        #expect(entry.detail?.hasPrefix("252 messages, 1 with media, from ") == true)
    }

    @Test(arguments: StoreKind.all) func ownersAndAdminsActionsAreAudited(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.admins = ["oscar"] }
        let oscar = try await world.signUp("oscar")
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let group = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        for member in [bob, carol] { _ = try await member.joinGroup(handle: "team", key: nil) }
        let (bobID, carolID) = (try await bob.me().id, try await carol.me().id)
        try await alice.setRole(.admin, for: bobID, in: group.id)
        let rude = try await carol.sendMessage(to: .chat(group.id), text: "rude", clientID: nil)
        _ = try await bob.deleteMessage(chat: group.id, seq: rude.seq, reason: "be kind")
        _ = try await alice.setGroupRules(in: group.id, GroupRulesChange(moderated: true, memberLimit: 20))
        try await bob.kick(user: carolID, from: group.id, reason: "cool off")
        try await alice.ban(handle: "carol", from: group.id)
        try await alice.unban(handle: "carol", from: group.id)
        let own = try await alice.sendMessage(to: .chat(group.id), text: "mine", clientID: nil)
        _ = try await alice.deleteMessage(chat: group.id, seq: own.seq)

        let log = try await alice.audit(chat: group.id, actor: nil, before: nil, limit: 50)
        #expect(
            log.map { "\($0.actor) \($0.action.rawValue) \($0.target) \($0.detail ?? "-") \($0.reason ?? "-")" } == [
                "alice unban @carol - -",
                "alice ban @carol - -",
                "bob kick @carol - cool off",
                "alice set_rules #team moderated on, member limit 20 -",
                "bob delete_message message \(rude.seq) by @carol - be kind",
                "alice set_role @bob member to admin -",
            ], "one's own deletion is not moderation")
        #expect(log.allSatisfy { $0.chatID == group.id && $0.place == "#team" })
        #expect(try await bob.audit(chat: group.id, actor: "@bob", before: nil, limit: 50).map(\.action) == [.kick, .deleteMessage])
        #expect(try await alice.audit(chat: group.id, actor: nil, before: log[1].id, limit: 2).map(\.id) == [log[2].id, log[3].id])
        await expectError(.forbidden) { _ = try await alice.audit(chat: nil, actor: nil, before: nil, limit: 50) }
        #expect(try await oscar.audit(chat: nil, actor: nil, before: nil, limit: 50).count == log.count)
    }
}
