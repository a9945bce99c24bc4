import ParleyCore
import ParleyEngine

extension IRCConnection {
    /// PRIVMSG/NOTICE to a channel (its group) or a nick (the direct chat, created by
    /// the first message). CTCP other than ACTION is not carried; ACTION goes as text.
    func privmsg(_ message: IRCMessage, notice: Bool) async throws {
        let recipients = try targets(message, 0)
        guard message.params.count > 1, !message.params[1].isEmpty else {
            if !notice { reply("412", ["No text to send"]) }
            return
        }
        var text = message.params[1]
        if text.hasPrefix("\u{1}") {
            let body = text.dropFirst().prefix { $0 != "\u{1}" }
            guard body.hasPrefix("ACTION ") else { return }
            text = "* \(nick) " + body.dropFirst("ACTION ".count)
        }
        for target in recipients {
            do {
                let recipient: Recipient
                if target.hasPrefix("#") {
                    recipient = .chat(try await channelChat(target).id)
                } else {
                    recipient = .user(try await session.user(handle: target).id)
                }
                // +draft/reply=CHAT-SEQ: a reply to that message, when it is in this chat.
                var replyTo: Int64?
                if let (chat, seq) = message.tags["+draft/reply"].flatMap(Self.position(fromMsgid:)) {
                    switch recipient {
                    case .chat(let id): replyTo = id.rawValue == chat ? seq : nil
                    case .user(let id): replyTo = try await session.directChat(with: id)?.id.rawValue == chat ? seq : nil
                    }
                }
                let sent = try await session.sendMessage(
                    to: recipient, text: text, clientID: message.tags["label"].map { "irc-\($0)" }, via: notice ? IRCView.noticeVia : nil,
                    replyTo: replyTo)
                if view.capabilities.contains("echo-message"), let me = view.me {
                    emit(
                        IRCView.messageLines(
                            sent, in: try await chatOf(sent, target: target), me: me, capabilities: view.capabilities, link: view.mediaLink)
                    )
                }
                if !notice, case .user(let id) = recipient, let away = try? await session.activity(of: id).away {
                    reply(IRCNumeric.away, [target, away])
                }
            } catch {
                if !notice { refuse(message.command, target: target, ParleyError(error)) }
            }
        }
    }

    /// REDACT target msgid [reason]: `delete_message` (IRCv3 draft/message-redaction);
    /// refusals as FAIL REDACT with the spec's codes.
    func redact(_ message: IRCMessage) async throws {
        let target = try parameter(message, 0)
        let msgid = try parameter(message, 1)
        let reason = message.params.count > 2 ? message.params[2] : nil
        guard let chat = try? await historyChat(target) else {
            fail("REDACT", "INVALID_TARGET", [target, "No such channel or conversation"])
            return
        }
        guard let position = Self.position(fromMsgid: msgid), position.chat == chat.id.rawValue else {
            fail("REDACT", "UNKNOWN_MSGID", [target, msgid, "No such message here"])
            return
        }
        do {
            _ = try await session.deleteMessage(chat: chat.id, seq: position.seq, reason: reason)
            // The others hear of it from the engine; the one who asked, from here.
            if view.capabilities.contains("draft/message-redaction"), let me = view.me {
                emit(IRCMessage(source: IRCView.prefix(me), command: "REDACT", params: [target, msgid] + (reason.map { [$0] } ?? [])))
            }
        } catch let error as ParleyError {
            switch error.code {
            case .forbidden: fail("REDACT", "REDACT_FORBIDDEN", [target, msgid, error.message])
            case .tooLate: fail("REDACT", "REDACT_WINDOW_EXPIRED", [target, msgid, error.message])
            case .unknownMessage: fail("REDACT", "UNKNOWN_MSGID", [target, msgid, error.message])
            default: throw error
            }
        }
    }

    /// The chat and sequence number of a msgid the gateway gave (`CHAT-SEQ`).
    static func position(fromMsgid msgid: String) -> (chat: Int64, seq: Int64)? {
        let parts = msgid.split(separator: "-")
        guard parts.count == 2, let chat = Int64(parts[0]), let seq = Int64(parts[1]), chat > 0, seq > 0 else { return nil }
        return (chat, seq)
    }

    private func chatOf(_ message: Message, target: String) async throws -> Chat {
        if let known = channels[target.lowercased()] { return known }
        return try await session.chat(message.chatID)
    }
}
