import Foundation
import ParleyCore
import ParleyLive
import ParleyProtocol
import Testing

/// What the buses and the journal keep of an event is the engine's own encoding, not the
/// clients' wire: it reads back as the same event, says its version, and is told apart
/// from the wire frames an older build kept.
@Suite struct EventEncodingTests {
    let alice = UserRef(id: UserID(1), handle: "alice", displayName: "Alice")
    let made = Date(timeIntervalSince1970: 1_764_390_000.123_456)

    var events: [ChatEvent] {
        let chat = Chat(
            id: ChatID(7), kind: .group, handle: "swift", title: "Swift", isPublic: true, participants: [alice], createdAt: made)
        return [
            .typing(Typing(chatID: chat.id, user: alice)),
            .memberJoined(MemberChange(chat: chat, user: alice, role: .admin, away: "lunch")),
            .chatDeleted(ChatDeleted(chatID: chat.id)),
            .chatCreated(ChatCreated(chat: chat, by: alice)),
        ]
    }

    @Test func anEventReadsBackAsItWasWrittenDatesExactly() throws {
        for event in events {
            let bytes = try #require(EventEncoding.encode(event))
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix(#"{"#))
            #expect(EventEncoding.decode(bytes) == event, "\(event.type)")
        }
    }

    @Test func anotherVersionAndAWireFrameAreNotReadAsThisOne() throws {
        let event = events[1]
        let bytes = try #require(EventEncoding.encode(event))
        var envelope = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(envelope["v"] as? Int == EventEncoding.version)
        envelope["v"] = EventEncoding.version + 1
        #expect(EventEncoding.decode(Array(try JSONSerialization.data(withJSONObject: envelope))) == nil)

        // What an older build kept: the wire frame, which its reader falls back to.
        let frame = try #require(EventFrame(event: event, pos: 0).bytes)
        #expect(EventEncoding.decode(frame) == nil)
        #expect(EventFrame.decoded(from: frame)?.event.type == event.type)
    }
}
