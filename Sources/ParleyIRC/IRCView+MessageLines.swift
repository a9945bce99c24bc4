import Foundation
import ParleyCore
import ParleyProtocol

/// A message as the lines an IRC client reads: where it goes, its tags, its text split
/// to fit, and the text forms of what plain clients have no tag for (a reply's quote,
/// the time of a line an edit or deletion is about).
extension IRCView {
    /// Where a message's line goes: its channel; for a direct message, the other user
    /// when `me` sent it, else `me`.
    static func target(of message: Message, in chat: Chat, me: UserRef) -> String? {
        if let channel = channel(chat) { return channel }
        guard message.sender.id == me.id else { return me.handle }
        return chat.participants.first { $0.id != me.id }?.handle
    }

    /// A message as PRIVMSG lines: one a line of its text, each within the line limit;
    /// media as its kind and caption.
    /// An image, video or file reads `[image] caption <link>` (`[file notes.pdf] …`),
    /// with a link for `me` alone. Of
    /// `capabilities` it reads only those in `IRCSharedLines.shaping`: a group's text is
    /// serialized once for all the clients that agree on those.
    /// `threadChannel`: the thread's own channel (`#ops/12`) the line goes to instead.
    static func messageLines(
        _ message: Message, in chat: Chat, me: UserRef, capabilities: Set<IRCCapability>,
        link: (String, UserID) -> String? = { _, _ in nil }, threadChannel: String? = nil
    ) -> [IRCMessage] {
        // A deleted message has no line (history leaves it out).
        guard message.kind != .system, message.deletedAt == nil, let target = threadChannel ?? target(of: message, in: chat, me: me)
        else { return [] }
        var text = message.text
        if message.kind == .image || message.kind == .video || message.kind == .file {
            let name = message.media?.name.map { " " + $0 } ?? ""
            text = "[\(message.kind.rawValue)\(name)]" + (text.isEmpty ? "" : " " + text)
            if let media = message.media, let url = link(media.id, me.id) { text += " " + url }
        }
        // A hook posts as the member who made it (the line's nick); the line says which
        // hook. A plugin's line is its user's, as a bouncer's script would be.
        var command = "PRIVMSG"
        switch message.via {
        case nil, .plugin: break
        case .hook(let name, let username): text = "[\(Provenance.hookLabel(name: name, username: username))] " + text
        case .notice: command = "NOTICE"
        }
        var tags: [String: String] = [:]
        if capabilities.contains(.serverTime) { tags["time"] = timestamp(message.sentAt) }
        if capabilities.contains(.messageTags) { tags["msgid"] = "\(chat.id.rawValue)-\(message.seq)" }
        if capabilities.contains(.accountTag), !isGuest(message.sender) { tags["account"] = message.sender.handle }
        if capabilities.contains(.messageTags) {
            if message.sender.isBot { tags["bot"] = "" }
            for (key, value) in message.clientTags ?? [:] where tags[key] == nil { tags[key] = value }
        }
        if let reply = message.replyTo, reply.seq > 0 {
            if capabilities.contains(.messageTags) { tags["+draft/reply"] = "\(chat.id.rawValue)-\(reply.seq)" }
            // A client that shows no replies sees what the line answers.
            if message.sender.id != me.id, quotesReplies(capabilities, me: me) { text = "[re " + quoted(reply) + "] " + text }
        }
        if let root = message.thread, threadChannel == nil {
            // A thread's line answers its root (or the message in it that it answers),
            // and a plain client reads which thread: its channel, and its title.
            if capabilities.contains(.messageTags), tags["+draft/reply"] == nil { tags["+draft/reply"] = "\(chat.id.rawValue)-\(root)" }
            if message.sender.id != me.id, quotesReplies(capabilities, me: me) {
                text = threadMarker(message, root: root, place: target) + " " + text
            }
        }
        let source = prefix(message.sender)
        let pieces = sentPieces(message, text: text) ?? pieces(of: text)
        guard pieces.count > 1 else { return [IRCMessage(tags: tags, source: source, command: command, params: [target, pieces[0].text])] }
        if capabilities.contains(.multiline) {
            // draft/multiline: one batch, the message's tags on its start; a line that had
            // to be cut continues the one before (draft/multiline-concat).
            let batch = "m\(chat.id.rawValue)-\(message.seq)"
            var lines = [IRCMessage(tags: tags, source: source, command: "BATCH", params: ["+" + batch, "draft/multiline", target])]
            for piece in pieces {
                let inner = piece.continued ? ["batch": batch, "draft/multiline-concat": ""] : ["batch": batch]
                lines.append(IRCMessage(tags: inner, source: source, command: command, params: [target, piece.blank ? "" : piece.text]))
            }
            lines.append(IRCMessage(source: source, command: "BATCH", params: ["-" + batch]))
            return lines
        }
        // Line by line, blank lines left out; the msgid on the first alone, as it names
        // the message, not the line.
        var lines: [IRCMessage] = []
        for piece in pieces where !piece.blank {
            lines.append(IRCMessage(tags: tags, source: source, command: command, params: [target, piece.text]))
            tags["msgid"] = nil
        }
        return lines.isEmpty ? [IRCMessage(tags: tags, source: source, command: command, params: [target, " "])] : lines
    }

    /// The lines as a `draft/multiline` batch cut the message (those it reaches live get
    /// it so), what the gateway put in front of its text on the first line that is not
    /// blank; nil when there is no cut, or a line is longer than one the gateway sends.
    static func sentPieces(_ message: Message, text: String) -> [(text: String, continued: Bool, blank: Bool)]? {
        guard let lines = message.lines, lines.count > 1, text.hasSuffix(message.text), lines.allSatisfy({ $0.text.utf8.count <= 400 })
        else { return nil }
        var lead = String(text.dropLast(message.text.count))
        return lines.map { line in
            guard !line.text.isEmpty else { return (" ", line.continues, true) }
            defer { lead = "" }
            return (lead + line.text, line.continues, false)
        }
    }

    /// Whether a client shows reactions from their tags. Taking `message-tags` alone is
    /// not enough: WeeChat takes it and shows none. Clients that page history or take
    /// deletions (gamja, Goguma) are the ones that draw them.
    static func showsReactions(_ capabilities: Set<IRCCapability>) -> Bool {
        capabilities.contains(.messageTags)
            && (capabilities.contains(.chathistory) || capabilities.contains(.messageRedaction))
    }

    /// Whether others' replies reach `me` with the head of what they answer in front:
    /// for a person's client without `message-tags` (irssi). A client with it gets the
    /// `+draft/reply` tag and the text as sent, as IRCv3 has it (irctest checks it), even
    /// one that draws no replies (WeeChat). A bot's lines stay as they were sent, so a
    /// command in a reply still reads as one, and so do those of a client that took no
    /// capability at all (a script, a bare RFC bot); one's own replies read as written.
    static func quotesReplies(_ capabilities: Set<IRCCapability>, me: UserRef) -> Bool {
        !capabilities.isEmpty && !capabilities.contains(.messageTags) && !me.isBot
    }

    /// `[#ops/12 "deploy friday"]`: the thread a line is in, named by the channel it can
    /// be followed in (`@bob/7` for a direct chat's), and its title.
    static func threadMarker(_ message: Message, root: Int64, place: String) -> String {
        let title = message.threadTitle.map { " \"" + head(of: $0) + "\"" } ?? ""
        // A direct chat's thread has no channel to name.
        return place.hasPrefix("#") ? "[\(place)/\(root)\(title)]" : "[thread \(root)\(title)]"
    }

    /// `alice: "first words…"` for a quoted message (`alice's deleted message` once gone).
    static func quoted(_ quote: ReplyQuote) -> String {
        if quote.deleted || quote.text.isEmpty { return quote.sender.handle + (quote.deleted ? "'s deleted message" : "'s message") }
        return "\(quote.sender.handle): \"\(head(of: quote.text))\""
    }

    /// The first forty characters of a text on one line (`…` when there is more), to
    /// name a message by its words.
    static func head(of text: String) -> String {
        let line = text.replacingOccurrences(of: "\n", with: " ")
        return line.count > 40 ? line.prefix(40) + "…" : line
    }

    /// A time as a plain client shows it in a line's text: `14:02 UTC`.
    static func clock(_ date: Date) -> String {
        date.formatted(clockStyle)
    }

    /// A message's time to the second, `14:02:37 UTC`: which line an edit, a deletion or
    /// reactions are about, for a client without tags. To the minute, three lines of one
    /// minute could each be the one; the client's own stamps (server-time) have seconds.
    static func moment(_ date: Date) -> String {
        date.formatted(momentStyle)
    }

    static let clockStyle = Date.VerbatimFormatStyle(
        format: "\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits) UTC", timeZone: .gmt,
        calendar: Calendar(identifier: .gregorian))

    static let momentStyle = Date.VerbatimFormatStyle(
        format: "\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) UTC",
        timeZone: .gmt, calendar: Calendar(identifier: .gregorian))

    /// A text as lines that fit an IRC line: split at newlines, and long lines at a
    /// character boundary within 400 bytes (what is left of 512 after the prefix,
    /// command and target).
    static func split(_ text: String, limit: Int = 400) -> [String] {
        pieces(of: text, limit: limit).map(\.text)
    }

    /// `split`'s lines, each saying whether it continues the one before (a long line
    /// cut) and whether it is blank (a blank line reads as one space).
    static func pieces(of text: String, limit: Int = 400) -> [(text: String, continued: Bool, blank: Bool)] {
        // Most texts are one short line: no need to walk their characters.
        if text.utf8.count <= limit, !text.utf8.contains(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            return [(text.isEmpty ? " " : text, false, text.isEmpty)]
        }
        var lines: [(text: String, continued: Bool, blank: Bool)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var current = ""
            var bytes = 0
            var continued = false
            for character in line where character != "\r" {
                let size = character.utf8.count
                if bytes + size > limit {
                    lines.append((current, continued, false))
                    (current, bytes, continued) = ("", 0, true)
                }
                current.append(character)
                bytes += size
            }
            lines.append((current.isEmpty ? " " : current, continued, current.isEmpty))
        }
        return lines
    }

    /// `2026-11-26T07:18:01.512Z`, as IRCv3's server-time has it: the wire's own
    /// `YYYY-MM-DDThh:mm:ss.sssZ`, to the nearest millisecond (as Parley stores times).
    static func timestamp(_ date: Date) -> String {
        Wire.text(of: date)
    }
}
