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
        var lines: [IRCMessage] = [notice("Playing back \(missed.count) message\(missed.count == 1 ? "" : "s") you missed")]
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
        for (message, chat) in missed {
            var shown = message
            // A client without server-time would show the time it is played back at.
            if !stamped { shown.text = "[\(Self.playbackTime.format(message.sentAt))] " + shown.text }
            lines += IRCView.messageLines(shown, in: chat, me: me, capabilities: capabilities, link: view.mediaLink)
        }
        lines.append(notice("End of playback"))
        emit(lines)
    }

    private func notice(_ text: String) -> IRCMessage {
        IRCMessage(source: serverName, command: "NOTICE", params: [nick, text])
    }

    static let playbackTime = Date.VerbatimFormatStyle(
        format:
            "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits) UTC",
        timeZone: .gmt, calendar: Calendar(identifier: .gregorian))
}
