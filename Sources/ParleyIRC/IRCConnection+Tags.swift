import ParleyCore
import ParleyEngine

/// TAGMSG: IRCv3 client tags without text. `+draft/react=EMOJI` with
/// `+draft/reply=CHAT-SEQ` reacts to that message; `+typing=active` says the user is
/// typing; any other client-only tags (and a reaction Parley cannot keep, one that is
/// not a single emoji) are relayed as they are to the chat's members, or to the nick,
/// and not stored.
extension IRCConnection {
    func tagmsg(_ message: IRCMessage) async throws {
        let target = try parameter(message, 0)
        var tags = message.tags.filter { $0.key.hasPrefix("+") }
        if target.lowercased() == nick.lowercased() {
            loopBack(message, target: target, text: nil, clientTags: tags)
            return
        }
        let recipient: Recipient
        var chat: ChatID?
        if target.hasPrefix("#") {
            let id = try await channelChat(target).id
            chat = id
            recipient = .chat(id)
        } else {
            let user = try await session.user(handle: target)
            recipient = .user(user.id)
            chat = try await session.directChat(with: user.id)?.id
        }
        if let emoji = tags["+draft/react"], !emoji.isEmpty, (try? Limits.emoji(emoji)) != nil {
            guard let (chatID, seq) = tags["+draft/reply"].flatMap(Self.position(fromMsgid:)), chatID == chat?.rawValue, let chat
            else {
                fail("TAGMSG", "INVALID_PARAMS", [target, "A reaction names the message it is for with +draft/reply=msgid"])
                return
            }
            _ = try await session.react(chat: chat, seq: seq, emoji: emoji)
            tags = ["+draft/react": emoji, "+draft/reply": "\(chat.rawValue)-\(seq)"]
        } else if tags.count == 1, tags["+typing"] == "active" {
            guard let chat else { return }
            try await session.typing(in: chat)
            return
        } else {
            guard let checked = (try? Limits.clientTags(tags)) ?? nil else {
                fail("TAGMSG", "INVALID_PARAMS", [target, "A TAGMSG carries client-only tags (+name=value), at most 32 in 4,094 bytes"])
                return
            }
            let notice = try await session.sendTags(checked, to: recipient)
            tags = checked
            if view.capabilities.contains(.messageTags) { tags["msgid"] = notice.id }
        }
        if view.capabilities.contains(.echoMessage), let me = view.me {
            emit(IRCMessage(tags: tags, source: IRCView.prefix(me), command: "TAGMSG", params: [target]))
        }
    }
}
