import Foundation
import ParleyCore
import ParleyEngine

/// IRCv3 draft/read-marker: MARKREAD reads and moves the same read marker as the
/// shell's `/read`, as a time, so unread counts agree across a user's clients.
extension IRCConnection {
    /// MARKREAD target: the read position (`timestamp=…`, or `*` where there is none).
    /// MARKREAD target timestamp=T: moves it forward to T and answers with where it is.
    func markRead(_ message: IRCMessage) async throws {
        guard let target = message.params.first, !target.isEmpty else {
            fail("MARKREAD", "NEED_MORE_PARAMS", ["Not enough parameters"])
            return
        }
        var time: Date?
        if message.params.count > 1 {
            let text = message.params[1]
            guard text.hasPrefix("timestamp="),
                let parsed = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(String(text.dropFirst(10)))
            else {
                fail("MARKREAD", "INVALID_PARAMS", [target, "A timestamp is timestamp=YYYY-MM-DDThh:mm:ss.sssZ"])
                return
            }
            time = parsed
        }
        // A target the user has no chat with has no read position.
        guard let chat = try? await historyChat(target).id else {
            emit(IRCMessage(source: serverName, command: "MARKREAD", params: [target, "*"]))
            return
        }
        let marker: ReadMarker
        if let time {
            marker = try await session.markRead(chat: chat, upToTime: time)
        } else {
            marker = try await session.readMarker(chat: chat)
        }
        emit(IRCMessage(source: serverName, command: "MARKREAD", params: [target, Self.position(marker)]))
    }

    /// `timestamp=…` for a read marker, `*` for none.
    static func position(_ marker: ReadMarker?) -> String {
        marker?.upTo.map { "timestamp=" + IRCView.timestamp($0) } ?? "*"
    }

    /// On JOIN, before the names: where the user has read up to.
    func announceReadMarker(of chat: Chat, channel: String) async {
        guard view.capabilities.contains(.readMarker) else { return }
        let marker = try? await session.readMarker(chat: chat.id)
        emit(IRCMessage(source: serverName, command: "MARKREAD", params: [channel, Self.position(marker)]))
    }
}
