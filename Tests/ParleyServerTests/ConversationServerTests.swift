import Foundation
import ParleyClient
import ParleyCore
import ParleyTesting
import Testing

/// Mentions, replies, edits, deletions, reactions, topics, typing, away and sessions
/// over the wire: a real server, real clients, and raw frames for what a client gets
/// wrong.
@Suite(.timeLimit(.minutes(10))) struct ConversationServerTests {
    @Test func theNewVerbsWorkOverTheWireAndReachTheRightPeople() async throws {
        let server = try await TestServer.start()
        let (alice, _, _) = try await client(server, "alice")
        let (bob, bobLog, bobIn) = try await client(server, "bob")
        let (carol, carolLog, carolIn) = try await client(server, "carol")
        let group = try await alice.createGroup(handle: "wire", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "wire")
        _ = try await alice.setTopic("all things wire", in: group.id)

        let first = try await alice.sendMessage(to: .chat(group.id), text: "@bob can you check this?", clientID: nil)
        #expect(first.mentions == ["bob"])
        let reply = try await bob.reply(to: first.seq, in: group.id, text: "on it", clientID: nil)
        #expect(reply.replyTo?.text == "@bob can you check this?" && reply.replyTo?.sender.handle == "alice")
        #expect(try await bob.react(chat: group.id, seq: first.seq, emoji: "👀") == [ReactionCount(emoji: "👀", count: 1)])
        let edited = try await alice.editMessage(chat: group.id, seq: first.seq, text: "@bob can you check this now?")
        #expect(edited.editedAt != nil && edited.reactions.count == 1)
        try await bob.typing(in: group.id)
        let gone = try await alice.deleteMessage(chat: group.id, seq: first.seq)
        #expect(gone.isDeleted)
        #expect(try await bob.mentions(limit: 5).isEmpty)

        let expected = ["chat_updated", "message", "message_edited", "message_deleted"]
        #expect(
            await bobLog.wait { events in
                let types = events.map(\.type)
                return expected.allSatisfy(types.contains)
            })
        let history = try await bob.history(chat: group.id, limit: 5, before: nil)
        #expect(history.map(\.seq) == [1, 2])
        #expect(history[0].isDeleted && history[0].reactions.isEmpty)
        #expect(history[1].replyTo?.deleted == true)
        #expect(try await bob.chat(group.id).topic == "all things wire")

        // Away, told to a direct sender once; carol was in none of the group's business.
        try await carol.setAway("on a train")
        _ = try await bob.sendMessage(to: .user(carolIn.user.id), text: "hello carol", clientID: nil)
        #expect(
            await bobLog.wait { events in
                events.contains { if case .away(let notice) = $0 { notice.message == "on a train" } else { false } }
            })
        #expect(await carolLog.wait { _ in carolLog.messages.contains { $0.text == "hello carol" } })
        #expect(
            !carolLog.all.contains {
                ["chat_updated", "message_edited", "message_deleted", "typing", "reaction_changed"].contains($0.type)
            })
        let activity = try await bob.activity(of: carolIn.user.id)
        #expect(activity.online && activity.away == "on a train")
        _ = bobIn

        // Sessions: the client names itself; revoking one closes its socket.
        let second = RemoteChatService(url: server.url, folder: nil, connectTimeout: .seconds(120))
        _ = try await second.signIn(login: "@alice", password: "password-alice")
        let sessions = try await alice.sessions()
        #expect(sessions.count == 2)
        #expect(sessions.allSatisfy { $0.address == "127.0.0.1" && $0.client.hasPrefix("parley/") })
        let other = try #require(sessions.first { !$0.current })
        try await alice.revokeSession(other.id)
        #expect(await eventually { await errorCode { try await second.me() } != nil })
        #expect(try await alice.sessions().count == 1)
        for service in [alice, bob, carol, second] { await service.close() }
        await server.stop()
    }

    @Test func badArgumentsToTheNewOpsGetTheirCodesAndChangeNothing() async throws {
        let server = try await TestServer.start()
        let (alice, _, _) = try await client(server, "alice")
        let group = try await alice.createGroup(handle: "raw", title: nil, isPublic: true)
        let message = try await alice.sendMessage(to: .chat(group.id), text: "keep me", clientID: nil)
        let socket = try await TestSocket(port: server.port)
        _ = try await socket.request(#"{"id":1,"op":"sign_in","args":{"login":"@alice","password":"password-alice"}}"#)
        let chat = group.id.rawValue
        let cases: [(String, String)] = [
            (#"{"id":2,"op":"edit_message","args":{"chat":\#(chat),"seq":-1,"text":"x"}}"#, "unknown_message"),
            (#"{"id":3,"op":"edit_message","args":{"chat":\#(chat),"seq":9223372036854775807,"text":"x"}}"#, "unknown_message"),
            (#"{"id":4,"op":"edit_message","args":{"chat":\#(chat),"seq":1e300,"text":"x"}}"#, "invalid_argument"),
            (#"{"id":5,"op":"edit_message","args":{"chat":\#(chat),"seq":1,"text":"\u0007bell"}}"#, "invalid_text"),
            (#"{"id":6,"op":"react","args":{"chat":\#(chat),"seq":1,"emoji":"not an emoji"}}"#, "invalid_argument"),
            (
                #"{"id":7,"op":"react","args":{"chat":\#(chat),"seq":1,"emoji":"\#(String(repeating: "👍", count: 1000))"}}"#,
                "invalid_argument"
            ),
            (#"{"id":8,"op":"delete_message","args":{"chat":424242,"seq":1}}"#, "unknown_chat"),
            (#"{"id":9,"op":"set_topic","args":{"chat":\#(chat),"topic":"\#(String(repeating: "t", count: 5000))"}}"#, "invalid_text"),
            (#"{"id":10,"op":"send","args":{"chat":\#(chat),"text":"re","reply_to":-3}}"#, "unknown_message"),
            (#"{"id":11,"op":"mentions","args":{"limit":100000}}"#, "invalid_argument"),
            (#"{"id":12,"op":"revoke_session","args":{"id":"\#(String(repeating: "f", count: 10000))"}}"#, "unknown_session"),
            (#"{"id":13,"op":"set_away","args":{"message":"\#(String(repeating: "a", count: 1000))"}}"#, "invalid_text"),
            (#"{"id":14,"op":"activity","args":{"user":-9}}"#, "unknown_user"),
            (#"{"id":15,"op":"set_group_rules","args":{"chat":\#(chat),"anyone_sets_topic":"yes"}}"#, "invalid_argument"),
        ]
        for (frame, code) in cases {
            let reply = try await socket.request(frame)
            #expect((reply?["error"] as? [String: Any])?["code"] as? String == code, "\(frame.prefix(80)): \(reply ?? [:])")
        }
        let stored = try await alice.history(chat: group.id, limit: 5, before: nil)
        #expect(stored == [message])
        #expect(try await alice.chat(group.id).topic == nil)
        await socket.close()
        await alice.close()
        await server.stop()
    }
}
