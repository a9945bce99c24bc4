import Foundation
import ParleyCore
import ParleyEngine

/// What a client that does not page history itself (irssi, WeeChat: no
/// `draft/chathistory`) missed, played back when it connects, as a bouncer would: every
/// message in the user's groups and direct chats since they were last seen or since
/// their read marker, whichever is later, in order, each with its time.
extension IRCConnection {
    /// Plays back what the user missed, once registered. `before`: when this connection
    /// signed in; what came after reaches it live.
    func playBack(before signedInAt: Date) async {
        var limits = gateway.configuration.playback
        // The user's own bound, under the server's (`/playback`, `NickServ SET PLAYBACK`).
        if let own = try? await session.ircPlayback() { limits.perChat = min(limits.perChat, own) }
        guard limits.perChat > 0, limits.total > 0, !view.capabilities.contains(.chathistory), let me = view.me,
            let seen = session.lastSeenBeforeSignIn, let summaries = try? await session.chats()
        else { return }
        var missed: [(message: Message, chat: Chat)] = []
        var cut: [(chat: Chat, shown: Int)] = []
        for summary in summaries {
            guard let last = summary.lastMessage, last.sentAt > seen else { continue }
            let marker = try? await session.readMarker(chat: summary.chat.id)
            let since = max(seen, marker?.upTo ?? .distantPast)
            guard last.sentAt > since,
                let page = try? await session.history(chat: summary.chat.id, limit: limits.perChat + 1, before: nil)
            else { continue }
            let unseen = page.filter { $0.sentAt > since && $0.sentAt < signedInAt && $0.seq > (marker?.seq ?? 0) }
            let shown = unseen.suffix(limits.perChat)
            if unseen.count > shown.count { cut.append((summary.chat, shown.count)) }
            missed += shown.map { ($0, summary.chat) }
        }
        guard !missed.isEmpty else { return }
        missed.sort {
            ($0.message.sentAt, $0.message.chatID.rawValue, $0.message.seq) < (
                $1.message.sentAt, $1.message.chatID.rawValue, $1.message.seq
            )
        }
        let dropped = missed.count - limits.total
        if dropped > 0 { missed.removeFirst(dropped) }
        let capabilities = view.capabilities
        let stamped = capabilities.contains(.serverTime)
        // Each message as it reads now; the count announced is the count shown.
        let played = missed.map { message, chat in
            playbackLines(message, in: chat, me: me, capabilities: capabilities, stamped: stamped)
        }.filter { !$0.isEmpty }
        guard !played.isEmpty else { return }
        var lines: [IRCMessage] = [notice("Playing back \(played.count) message\(played.count == 1 ? "" : "s") you missed")]
        for chat in cut {
            let name = IRCView.channel(chat.chat) ?? chat.chat.peer(of: me.id)?.handle ?? "a direct chat"
            lines.append(
                notice(
                    "\(name): only the last \(chat.shown) messages are played back; the rest are in /history in the shell, "
                        + "or CHATHISTORY in a client that has it"))
        }
        if dropped > 0 {
            lines.append(notice("\(dropped) more are left out (at most \(limits.total) in all): /history in the shell has them"))
        }
        for each in played { lines += each }
        lines.append(notice("End of playback"))
        emit(lines)
    }

    /// A missed message as it reads now, with what changed since it was sent: a deleted
    /// one as a placeholder where it stood, an edited one marked with when, a reply with
    /// the head of what it answers, its reactions summed in a line after it that names it
    /// by sender, time and words. Nothing for a line no client shows (a system message).
    private func playbackLines(
        _ message: Message, in chat: Chat, me: UserRef, capabilities: Set<IRCCapability>, stamped: Bool
    ) -> [IRCMessage] {
        var shown = message
        // A client without server-time would show the time it is played back at.
        var marks = stamped ? "" : "[\(Self.playbackTime.format(message.sentAt))] "
        if message.deletedAt != nil {
            shown.deletedAt = nil
            shown.kind = .text
            shown.media = nil
            shown.replyTo = nil
            shown.text = "[deleted message]"
        } else if let edited = message.editedAt {
            marks += "[edited \(IRCView.clock(edited))] "
        }
        // A reply read later, away from what it answers, shows its head even to a person's
        // client that takes the reply's tag but draws no replies (WeeChat); a client
        // without the tag has it in front already (`messageLines`).
        if message.deletedAt == nil, let reply = message.replyTo, reply.seq > 0, message.sender.id != me.id, !me.isBot,
            capabilities.contains(.messageTags)
        {
            marks += "[re " + IRCView.quoted(reply) + "] "
        }
        // So does a thread's line its thread (a client without the tag has it already).
        if message.deletedAt == nil, let root = message.thread, message.sender.id != me.id, !me.isBot,
            capabilities.contains(.messageTags), let target = IRCView.target(of: message, in: chat, me: me)
        {
            marks += IRCView.threadMarker(message, root: root, place: target) + " "
        }
        shown.text = marks + shown.text
        var lines = IRCView.messageLines(shown, in: chat, me: me, capabilities: capabilities, link: view.mediaLink)
        // A client that takes deletions is told of it as it would have been live: the
        // placeholder, then REDACT of its msgid, which such a client draws as deleted.
        if message.deletedAt != nil, capabilities.contains(.messageRedaction), !lines.isEmpty,
            let target = IRCView.target(of: message, in: chat, me: me)
        {
            let msgid = "\(chat.id.rawValue)-\(message.seq)"
            lines.append(IRCMessage(source: IRCView.prefix(message.sender), command: "REDACT", params: [target, msgid]))
        }
        guard message.deletedAt == nil, !message.reactions.isEmpty, !lines.isEmpty,
            let target = IRCView.target(of: message, in: chat, me: me)
        else { return lines }
        let counts = message.reactions.map { "\($0.emoji) \($0.count)" }.joined(separator: ", ")
        let words = message.text.isEmpty ? "" : " \"\(IRCView.head(of: message.text))\""
        let about = "\(message.sender.handle)'s message of \(IRCView.moment(message.sentAt))\(words)"
        lines.append(IRCMessage(source: serverName, command: "NOTICE", params: [target, "[reactions to \(about): \(counts)]"]))
        return lines
    }

    private func notice(_ text: String) -> IRCMessage {
        IRCMessage(source: serverName, command: "NOTICE", params: [nick, text])
    }

    static let playbackTime = Date.VerbatimFormatStyle(
        format:
            "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits) UTC",
        timeZone: .gmt, calendar: Calendar(identifier: .gregorian))
}
