import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Retention on both stores: what is older than the server's policy, or a group's
/// shorter one, is deleted with its media, search entries, mentions and reactions; what
/// is newer stays, and sends made while it runs land.
@Suite(.timeLimit(.minutes(10))) struct RetentionTests {
    @Test(arguments: StoreKind.all) func oldMessagesGoAndNothingElse(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) {
            $0.retentionDays = 30
            $0.retentionBatch = 7
        }
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let team = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        let brief = try await alice.createGroup(handle: "brief", title: nil, isPublic: true)
        for group in [team, brief] { _ = try await bob.joinGroup(handle: group.handle ?? "", key: nil) }
        let bobID = try await bob.me().id

        // Forty days ago: messages, a mention, a reaction, a file.
        var old: [Int64] = []
        for index in 0..<20 {
            old.append(try await alice.sendMessage(to: .chat(team.id), text: "ancient \(index) @bob", clientID: nil).seq)
        }
        _ = try await bob.react(chat: team.id, seq: old[0], emoji: "👍")
        let notes = world.folder.appendingPathComponent("old.txt")
        try Data("old news\n".utf8).write(to: notes)
        let file = try await alice.uploadMedia(from: notes, kind: .file, for: .chat(team.id), progress: nil)
        let withFile = try await alice.sendMedia(to: .chat(team.id), media: file.id, caption: "", name: "old.txt", clientID: nil, via: nil)
        let direct = try await alice.sendMessage(to: .user(bobID), text: "ancient direct", clientID: nil)
        world.clock.advance(by: .seconds(25 * 86400))
        // Fifteen days ago: kept by the server, not by #brief's own 10 days.
        let middle = try await alice.sendMessage(to: .chat(team.id), text: "middle team", clientID: nil)
        let briefOld = try await alice.sendMessage(to: .chat(brief.id), text: "middle brief", clientID: nil)
        world.clock.advance(by: .seconds(15 * 86400))
        await expectError(.invalidArgument) { _ = try await alice.setGroupRules(in: brief.id, GroupRulesChange(retentionDays: 31)) }
        await expectError(.forbidden) { _ = try await bob.setGroupRules(in: brief.id, GroupRulesChange(retentionDays: 5)) }
        let rules = try await alice.setGroupRules(in: brief.id, GroupRulesChange(retentionDays: 10))
        #expect(rules.retentionDays == 10 && rules.serverRetentionDays == 30)

        // Sends go on while it runs, and all of them land.
        async let pass = world.engine.applyRetention()
        var fresh: [Int64] = []
        for index in 0..<30 { fresh.append(try await bob.sendMessage(to: .chat(team.id), text: "fresh \(index)", clientID: nil).seq) }
        let done = try await pass
        #expect(done.messages == 23 && done.media == 1, "20, the file and the direct one in the server's pass, 1 of #brief's: \(done)")

        let history = try await bob.history(chat: team.id, limit: 200, before: nil).map(\.seq)
        #expect(history == [middle.seq] + fresh)
        #expect(try await bob.history(chat: brief.id, limit: 200, before: nil).allSatisfy { $0.seq != briefOld.seq })
        let directChat = try #require(try await bob.directChat(with: try await alice.me().id))
        #expect(try await bob.history(chat: directChat.id, limit: 10, before: nil).allSatisfy { $0.seq != direct.seq })
        #expect(try await bob.search("ancient", in: nil, limit: 10).isEmpty)
        #expect(try await bob.search("middle", in: team.id, limit: 10).map(\.seq) == [middle.seq])
        #expect(try await bob.mentions(limit: 50).isEmpty)
        let saved = world.folder.appendingPathComponent("fetched.txt")
        await expectError(.unknownMedia) { _ = try await bob.downloadMedia(file.id, to: saved, replace: true, progress: nil) }
        _ = withFile
        // Nothing left to do: a second pass deletes nothing.
        #expect(try await world.engine.applyRetention().messages == 0)
        // Members heard of #brief's policy with the rules.
        let audit = try await alice.audit(chat: brief.id, actor: nil, before: nil, limit: 5)
        #expect(audit.first?.detail == "messages kept 10 days")
    }

    /// A thread keeps count of what retention leaves of it, outlives its root while its
    /// messages are kept, and goes with the last of them.
    @Test(arguments: StoreKind.all) func aThreadCountsWhatIsLeftAndGoesWithItsLastMessage(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.retentionDays = 30 }
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let team = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "team", key: nil)
        let root = try await alice.sendMessage(to: .chat(team.id), text: "plan?", clientID: nil)
        _ = try await bob.sendToThread(chat: team.id, seq: root.seq, text: "old answer", clientID: nil, via: nil, alsoToChat: false)
        world.clock.advance(by: .seconds(25 * 86400))
        let kept = try await bob.sendToThread(
            chat: team.id, seq: root.seq, text: "newer answer", clientID: nil, via: nil, alsoToChat: false)
        world.clock.advance(by: .seconds(15 * 86400))
        #expect(try await world.engine.applyRetention().messages == 2)
        let left = try await alice.thread(chat: team.id, root: root.seq)
        #expect(left.replies == 1 && left.rootMessage == nil && left.lastSeq == kept.seq, "\(left)")
        #expect(try await alice.history(chat: team.id, flow: .thread(root.seq), limit: 10, before: nil).map(\.text) == ["newer answer"])
        world.clock.advance(by: .seconds(20 * 86400))
        #expect(try await world.engine.applyRetention().messages == 1)
        #expect(try await alice.threads(in: team.id, limit: 10).isEmpty)
        await expectError(.unknownMessage) { _ = try await alice.thread(chat: team.id, root: root.seq) }
    }
}
