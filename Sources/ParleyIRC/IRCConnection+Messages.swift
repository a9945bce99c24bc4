import Foundation
import ParleyCore
import ParleyEngine

extension IRCConnection {
    /// PRIVMSG/NOTICE to a channel (its group) or a nick (the direct chat, created by
    /// the first message). CTCP other than ACTION is not carried; ACTION goes as text.
    /// `lines`: how a multiline batch cut the text.
    func privmsg(_ message: IRCMessage, notice: Bool, lines: [MessageLine]? = nil) async throws {
        let recipients = try targets(message, 0)
        guard message.params.count > 1, !message.params[1].isEmpty else {
            if !notice { reply(IRCNumeric.noTextToSend, ["No text to send"]) }
            return
        }
        var text = message.params[1]
        if text.hasPrefix("\u{1}") {
            let body = text.dropFirst().prefix { $0 != "\u{1}" }
            guard body.hasPrefix("ACTION ") else { return }
            text = "* \(nick) " + body.dropFirst("ACTION ".count)
        }
        let clientTags = Self.clientTags(of: message)
        // s/old/new/ to one chat: a correction of the sender's last line there.
        if !notice, recipients.count == 1, text.hasPrefix("s/"), message.tags["+draft/reply"] == nil,
            recipients[0].lowercased() != nick.lowercased(), await correctLastMessage(to: recipients[0], with: text)
        {
            return
        }
        for target in recipients {
            if target.lowercased() == nick.lowercased() {
                loopBack(message, target: target, text: message.params[1], clientTags: clientTags)
                continue
            }
            if target.caseInsensitiveCompare(Self.nickServ) == .orderedSame {
                // Services never answer a NOTICE.
                if !notice { await nickServ(Self.words(message.params[1])) }
                continue
            }
            do {
                let recipient: Recipient
                // A thread's channel (`#ops/12`): a message into that thread.
                var thread: (chat: ChatID, seq: Int64)?
                if let (_, root) = Self.threadChannel(target) {
                    let chat = try await channelChat(target)
                    recipient = .chat(chat.id)
                    thread = (chat.id, root)
                } else if target.hasPrefix("#") {
                    recipient = .chat(try await channelChat(target).id)
                } else {
                    let user = try await session.user(handle: target)
                    if !notice, user.isBot, text.trimmingCharacters(in: .whitespaces).lowercased() == "help",
                        await answerHelp(of: user)
                    {
                        continue
                    }
                    recipient = .user(user.id)
                }
                // +draft/reply=CHAT-SEQ: a reply to that message, when it is in this chat,
                // goes into its thread (the one it is in, or the one it starts).
                if let (chat, seq) = message.tags["+draft/reply"].flatMap(Self.position(fromMsgid:)) {
                    switch recipient {
                    case .chat(let id): if id.rawValue == chat { thread = (id, seq) }
                    case .user(let id):
                        if let direct = try await session.directChat(with: id), direct.id.rawValue == chat { thread = (direct.id, seq) }
                    }
                }
                // No client id: a label only pairs replies with a line, and clients count
                // labels from 1 again on each connection, so a label taken as a retry key
                // would swallow a later message as a resend.
                let sent = try await session.send(
                    text, lines: lines, to: thread.map { .chat($0.chat) } ?? recipient, thread: thread?.seq, notice: notice,
                    clientTags: clientTags)
                if view.capabilities.contains(.echoMessage), let me = view.me {
                    let chat = try await chatOf(sent, target: target)
                    let channel = sent.thread.flatMap { view.threadChannel(of: chat.id, root: $0) }
                    let own = IRCView.messageLines(sent, in: chat, me: me, capabilities: view.capabilities, link: view.mediaLink)
                    // Echoed where the client reads the thread (and in the chat's channel too
                    // when it went there as well).
                    if let channel {
                        let inThread = IRCView.messageLines(
                            sent, in: chat, me: me, capabilities: view.capabilities, link: view.mediaLink, threadChannel: channel)
                        emit((sent.alsoToChat ? own : []) + inThread)
                    } else {
                        emit(own)
                    }
                }
                if !notice, case .user(let id) = recipient, let away = try? await session.activity(of: id).away {
                    reply(IRCNumeric.away, [target, away])
                }
            } catch {
                if !notice { refuse(message.command, target: target, ParleyError(error)) }
            }
        }
    }

    /// `/msg BOT help` to a bot that declared chat commands: the list, as NOTICEs from
    /// the bot (who is not sent the line); false for a bot that declared none.
    private func answerHelp(of bot: User) async -> Bool {
        guard let commands = try? await session.botCommands(of: bot.id), !commands.isEmpty else { return false }
        let source = IRCView.prefix(bot.ref)
        var lines = ["Commands of \(bot.handle), typed in a channel it is in:"]
        for command in commands {
            let who = command.isOpen ? "" : " (\(command.allowedText(in: "the channel")) only)"
            lines.append("  \(command.usage)  \(command.help)\(who)")
        }
        for line in lines { emit(IRCMessage(source: source, command: "NOTICE", params: [nick, line])) }
        return true
    }

    /// The client-only tags of a line to pass on with what it sends (+draft/reply is read
    /// as a reply instead); none when they are more than Parley carries.
    static func clientTags(of message: IRCMessage) -> [String: String]? {
        let tags = message.tags.filter { $0.key.hasPrefix("+") && $0.key != "+draft/reply" }
        return (try? Limits.clientTags(tags)) ?? nil
    }

    /// A PRIVMSG, NOTICE or TAGMSG to oneself comes straight back, as IRC servers do; it
    /// is no chat, so nothing is kept. The copy delivered is not part of the reply to a
    /// labeled line; the echo (echo-message) is.
    func loopBack(_ message: IRCMessage, target: String, text: String?, clientTags: [String: String]?) {
        guard let me = view.me else { return }
        var tags = view.capabilities.contains(.messageTags) ? (clientTags ?? [:]) : [:]
        if view.capabilities.contains(.serverTime) { tags["time"] = IRCView.timestamp(Date()) }
        let line = IRCMessage(
            tags: tags, source: IRCView.prefix(me), command: message.command, params: [target] + (text.map { [$0] } ?? []))
        if message.command != "TAGMSG" || view.capabilities.contains(.messageTags) { output.send(line) }
        if view.capabilities.contains(.echoMessage) { emit(line) }
    }

    /// REDACT target msgid [reason]: `delete_message` (IRCv3 draft/message-redaction);
    /// refusals as FAIL REDACT with the spec's codes.
    func redact(_ message: IRCMessage) async throws {
        let target = try parameter(message, 0)
        let msgid = try parameter(message, 1)
        let reason = message.params.count > 2 ? message.params[2] : nil
        guard let (chat, seq) = await namedMessage("REDACT", target: target, msgid: msgid) else { return }
        do {
            _ = try await session.deleteMessage(chat: chat.id, seq: seq, reason: reason)
            // The others hear of it from the engine; the one who asked, from here.
            if view.capabilities.contains(.messageRedaction), let me = view.me {
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

    /// The chat a target names and the number of the message a msgid names in it; nil
    /// after `FAIL command INVALID_TARGET` or `UNKNOWN_MSGID` (REDACT's and EDIT's codes).
    func namedMessage(_ command: String, target: String, msgid: String) async -> (Chat, Int64)? {
        guard let chat = try? await historyChat(target) else {
            fail(command, "INVALID_TARGET", [target, "No such channel or conversation"])
            return nil
        }
        guard let position = Self.position(fromMsgid: msgid), position.chat == chat.id.rawValue else {
            fail(command, "UNKNOWN_MSGID", [target, msgid, "No such message here"])
            return nil
        }
        return (chat, position.seq)
    }

    /// The chat and sequence number of a msgid the gateway gave (`CHAT-SEQ`).
    static func position(fromMsgid msgid: String) -> (chat: Int64, seq: Int64)? {
        let parts = msgid.split(separator: "-")
        guard parts.count == 2, let chat = Int64(parts[0]), let seq = Int64(parts[1]), chat > 0, seq > 0 else { return nil }
        return (chat, seq)
    }

    private func chatOf(_ message: Message, target: String) async throws -> Chat {
        if let known = view.joined(target) ?? view.joinedThread(target)?.chat { return known }
        return try await session.chat(message.chatID)
    }
}
