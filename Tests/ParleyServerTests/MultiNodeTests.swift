import Foundation
import ParleyClient
import ParleyCore
import ParleyTesting
import Testing

/// Two `parley serve` nodes on one PostgreSQL, clients on each: one chat service.
@Suite(.timeLimit(.minutes(10))) struct MultiNodeTests {
    struct Node {
        let process: ServeProcess
        var url: String { process.url }
    }

    static func temporaryFolder(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func node(_ data: URL, database: String, media: URL) async throws -> ServeProcess {
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        return try await ServeProcess.start(
            data: data, arguments: ["--postgres", database, "--media", media.path, "--heartbeat-timeout", "5", "--rate-limit", "0"])
    }

    static func user(_ handle: String, at url: String) async throws -> (RemoteChatService, EventLog, SignedIn) {
        let service = RemoteChatService(url: url, folder: nil, connectTimeout: .seconds(120))
        let log = EventLog(service.events)
        let signedIn = try await service.register(
            Registration(email: "\(handle)@example.com", password: "password-\(handle)", displayName: handle.capitalized, handle: handle))
        return (service, log, signedIn)
    }

    static func count(of id: MessageID, in log: EventLog) -> Int {
        log.messages.filter { $0.id == id }.count
    }

    @Test func chatsMembersPresenceAndMediaAreOneServiceAcrossNodesAndSurviveANodeKilled() async throws {
        let database = try TestPostgres.newDatabase()
        let scratch = try Self.temporaryFolder("nodes")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let media = scratch.appendingPathComponent("shared-media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let a = try await Self.node(scratch.appendingPathComponent("a"), database: database, media: media)
        let b = try await Self.node(scratch.appendingPathComponent("b"), database: database, media: media)
        defer { a.stop() }

        // ann and dan on A; bob on B, who moves to A if B stops answering; carol on B only.
        let (ann, annLog, _) = try await Self.user("ann", at: a.url)
        let (bob, bobLog, bobIn) = try await Self.user("bob", at: "\(b.url),\(a.url)")
        let (carol, carolLog, carolIn) = try await Self.user("carol", at: b.url)
        let (dan, _, danIn) = try await Self.user("dan", at: b.url)
        let group = try await ann.createGroup(handle: "ops", title: "Ops", isPublic: true)
        for member in [bob, carol, dan] { _ = try await member.joinGroup(handle: "ops") }

        // A group chat and a direct chat are live across nodes, each message once.
        let one = try await ann.sendMessage(to: .chat(group.id), text: "one, from A", clientID: "ann-1")
        #expect(await bobLog.wait { _ in Self.count(of: one.id, in: bobLog) == 1 })
        #expect(await carolLog.wait { _ in Self.count(of: one.id, in: carolLog) == 1 })
        let two = try await bob.sendMessage(to: .chat(group.id), text: "two, from B", clientID: "bob-2")
        #expect(await annLog.wait { _ in Self.count(of: two.id, in: annLog) == 1 })
        let direct = try await carol.sendMessage(to: .user(try await ann.me().id), text: "psst, from B", clientID: "carol-3")
        #expect(await annLog.wait { _ in Self.count(of: direct.id, in: annLog) == 1 })
        #expect(!bobLog.messages.contains { $0.id == direct.id }, "a direct chat reaches its two users only")

        // A kick on A holds on B at once: dan can neither send nor read there.
        try await ann.kick(user: danIn.user.id, from: group.id)
        await expectError(.notMember) { _ = try await dan.sendMessage(to: .chat(group.id), text: "still here?", clientID: nil) }
        await expectError(.notMember) { _ = try await dan.history(chat: group.id, limit: 10, before: nil) }

        // Media uploaded through A downloads through B: the nodes share the folder.
        let image = scratch.appendingPathComponent("dot.png")
        try SampleMedia.png(width: 4, height: 3) { x, y in [UInt8(x * 60), UInt8(y * 80), 200] }.write(to: image)
        let uploaded = try await ann.uploadMedia(from: image, kind: .image, for: .chat(group.id), progress: nil)
        _ = try await ann.sendMedia(to: .chat(group.id), media: uploaded.id, caption: "a dot", clientID: "ann-media")
        let copy = image.deletingLastPathComponent().appendingPathComponent("copy.png")
        _ = try await bob.downloadMedia(uploaded.id, to: copy, replace: false, progress: nil)
        #expect(try Data(contentsOf: copy) == Data(contentsOf: image))

        // Reactions, edits, topics and rules cross nodes; B forgets its copy of the group
        // when the rules change on A, so carol may set the topic through B at once.
        _ = try await bob.react(chat: group.id, seq: one.seq, emoji: "👍")
        #expect(
            await annLog.wait { events in events.contains { if case .reactionChanged(let c) = $0 { c.seq == one.seq } else { false } } })
        _ = try await ann.editMessage(chat: group.id, seq: one.seq, text: "one, from A, edited")
        #expect(
            await carolLog.wait { events in events.contains { if case .messageEdited(let e) = $0 { e.message.id == one.id } else { false } }
            })
        await expectError(.forbidden) { _ = try await carol.setTopic("carol's", in: group.id) }
        _ = try await ann.setGroupRules(in: group.id, anyoneSetsTopic: true, anyoneMentionsAll: nil)
        #expect(
            await carolLog.wait { events in events.contains { if case .chatUpdated(let c) = $0 { c.chat.anyoneSetsTopic } else { false } } }
        )
        #expect(try await carol.setTopic("carol's now", in: group.id).topic == "carol's now")
        #expect(
            await annLog.wait { events in
                events.contains { if case .chatUpdated(let c) = $0 { c.chat.topic == "carol's now" } else { false } }
            })
        #expect(try await ann.chat(group.id).topic == "carol's now")

        // A password changed through A ends ann's other session, on B, as it would on A.
        let annOnB = RemoteChatService(url: b.url, folder: nil, connectTimeout: .seconds(120))
        _ = try await annOnB.signIn(login: "@ann", password: "password-ann")
        #expect(try await annOnB.me().handle == "ann")
        try await ann.changePassword(current: "password-ann", new: "password-ann-2")
        var ended = false
        for _ in 0..<2400 where !ended {
            do { _ = try await annOnB.me() } catch { ended = true }
            if !ended { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(ended, "the session on B ended")
        #expect(try await ann.me().handle == "ann", "the session that changed it stays")
        await annOnB.close()

        // B dies without a word. Its users are shown offline to A's after the heartbeat
        // timeout; bob's client moves to A and resumes where it was.
        await onOwnThread { b.kill() }
        var sentWhileDown: [Message] = []
        for number in 0..<5 {
            sentWhileDown.append(
                try await ann.sendMessage(to: .chat(group.id), text: "while B is down \(number)", clientID: "ann-down-\(number)"))
        }
        #expect(
            await annLog.wait { events in
                events.contains {
                    if case .presenceChanged(let change) = $0 { change.user.id == carolIn.user.id && !change.online } else { false }
                }
            }, "carol, whose node died, is shown offline")
        let fromA = try await bob.sendMessage(to: .chat(group.id), text: "bob, now through A", clientID: "bob-after")
        #expect(await annLog.wait { _ in Self.count(of: fromA.id, in: annLog) == 1 })
        for message in sentWhileDown {
            #expect(await bobLog.wait { _ in Self.count(of: message.id, in: bobLog) >= 1 }, "bob missed \(message.text)")
        }
        let after = try await ann.sendMessage(to: .chat(group.id), text: "after the move", clientID: "ann-after")
        #expect(await bobLog.wait { _ in Self.count(of: after.id, in: bobLog) == 1 })
        for message in [one] + sentWhileDown + [after] {
            #expect(Self.count(of: message.id, in: bobLog) == 1, "bob got \(message.text) \(Self.count(of: message.id, in: bobLog)) times")
        }
        #expect(bobLog.messages.filter { $0.sender.id == bobIn.user.id }.isEmpty, "bob's own messages are not echoed back")

        // Every acknowledged message is stored once, in order, with no gap.
        let history = try await ann.history(chat: group.id, limit: 100, before: nil)
        #expect(history.map(\.seq) == Array(1...Int64(history.count)))
        let acknowledged = [one, two] + sentWhileDown + [fromA, after]
        for message in acknowledged { #expect(history.filter { $0.id == message.id }.count == 1) }
        for service in [ann, bob, carol, dan] { await service.close() }
    }
}
