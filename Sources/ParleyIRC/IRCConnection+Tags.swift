import ParleyCore
import ParleyEngine

/// TAGMSG: IRCv3 client tags without text. `+draft/react=EMOJI` with
/// `+draft/reply=CHAT-SEQ` reacts to that message; `+typing=active` says the user is
/// typing. Other client-only tags are not carried.
extension IRCConnection {
    func tagmsg(_ message: IRCMessage) async throws {
        let target = try parameter(message, 0)
        let chat: ChatID
        if target.hasPrefix("#") {
            chat = try await channelChat(target).id
        } else {
            let user = try await session.user(handle: target)
            guard let direct = try await session.directChat(with: user.id) else { return }
            chat = direct.id
        }
        if let emoji = message.tags["+draft/react"], !emoji.isEmpty {
            guard let (chatID, seq) = message.tags["+draft/reply"].flatMap(Self.position(fromMsgid:)), chatID == chat.rawValue else {
                fail("TAGMSG", "INVALID_PARAMS", [target, "A reaction names the message it is for with +draft/reply=msgid"])
                return
            }
            _ = try await session.react(chat: chat, seq: seq, emoji: emoji)
            if view.capabilities.contains("echo-message"), let me = view.me {
                emit(
                    IRCMessage(
                        tags: ["+draft/react": emoji, "+draft/reply": "\(chat.rawValue)-\(seq)"], source: IRCView.prefix(me),
                        command: "TAGMSG", params: [target]))
            }
        } else if message.tags["+typing"] == "active" {
            try await session.typing(in: chat)
        }
    }
}
