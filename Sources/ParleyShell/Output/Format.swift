public import Foundation
public import ParleyCore

/// Human renderings of messages, chats and events. Everything that came from another
/// user goes through `Sanitizer` here, and only here.
public enum Format {
    enum Colour: String {
        case dim = "2"
        case bold = "1"
        case red = "31"
        case green = "32"
        case yellow = "33"
        case cyan = "36"
        case magenta = "35"
    }

    static func paint(_ text: String, _ colour: Colour) -> String {
        "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m"
    }

    /// `HH:mm` in local time (the C library's, which is cheaper than a DateFormatter
    /// on every line of a long script).
    public static func time(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var local = tm()
        localtime_r(&seconds, &local)
        let hour = Int(local.tm_hour), minute = Int(local.tm_min)
        return "\(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute)"
    }

    /// `#swift` for a group, `@bob` for a direct chat seen by `me`.
    public static func label(_ chat: Chat, me: UserID?) -> String {
        switch chat.kind {
        case .group: "#" + Sanitizer.line(chat.handle ?? String(chat.id.rawValue))
        case .direct: "@" + Sanitizer.line(chat.peer(of: me ?? UserID(0))?.handle ?? "?")
        }
    }

    public static func user(_ user: UserRef) -> String {
        "@" + Sanitizer.line(user.handle) + (user.isBot ? " [bot]" : "")
    }

    /// `[14:03] #swift <alice> hello`; continuation lines of a multi-line message are
    /// indented under the text, and so is the quoted head of the message a reply answers.
    /// A message that mentions `myHandle` is highlighted (in colour).
    public static func message(_ message: Message, in chat: Chat, me: UserID?, myHandle: String? = nil, colour: Bool = false) -> String {
        let time = "[\(self.time(message.sentAt))]"
        let place = label(chat, me: me) + (message.thread.map { "/\($0)" } ?? "")
        let nick = "<\(sender(message))>"
        let prefix = "\(time) \(place) \(nick) "
        var text = Sanitizer.message(message.text)
        if let media = message.media { text = self.media(media) + (text.isEmpty ? "" : " " + text) }
        if message.isDeleted { text = "(deleted)" }
        if message.editedAt != nil, !message.isDeleted { text += " (edited)" }
        if !message.reactions.isEmpty { text += "  " + reactions(message.reactions) }
        if let quote = message.replyTo { text += "\n" + self.quote(quote) }
        var body = text
        if text.utf8.contains(10) {
            let indent = String(repeating: " ", count: prefix.count)
            body = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n" + indent)
        }
        guard colour else { return prefix + body }
        let nickColour: Colour = message.sender.id == me ? .green : .magenta
        if let myHandle, message.sender.id != me, message.mentions(myHandle) { body = highlight(body) }
        return "\(paint(time, .dim)) \(paint(place, .cyan)) \(paint(nick, nickColour)) \(body)"
    }

    /// `12. ` before a message's lines, its continuation lines (a reply's quote, a
    /// message's further lines) moved right as far, so they stay under its text.
    /// Who a message reads as in a chat line: `alice`, `dice*` (a bot account), `alice via
    /// standup` (a plugin sending for its user), `alice via IRC notice`, or a hook's label
    /// (`Release Bot (CI hook)`; its maker is the message's sender, in `/whois`-able JSON).
    static func sender(_ message: Message) -> String {
        let handle = Sanitizer.line(message.sender.handle) + (message.sender.isBot ? "*" : "")
        switch message.via {
        case nil: return handle
        case .plugin(let name): return handle + " via " + Sanitizer.line(name)
        case .notice: return handle + " via IRC notice"
        case .hook(let name, let username): return Sanitizer.line(Provenance.hookLabel(name: name, username: username))
        }
    }

    /// Who a message reads as in logs: its sender's handle, or the hook that posted it.
    static func author(_ message: Message) -> String {
        switch message.via {
        case nil, .plugin, .notice: Sanitizer.line(message.sender.handle)
        case .hook(let name, let username): Sanitizer.line(Provenance.hookLabel(name: name, username: username))
        }
    }

    static func numbered(_ seq: Int64, _ formatted: String) -> String {
        let number = "\(seq). "
        guard formatted.utf8.contains(10) else { return number + formatted }
        let indent = String(repeating: " ", count: number.count)
        return number + formatted.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n" + indent)
    }

    /// `↳ @ann: first words…`, or `↳ @ann: (deleted)`.
    static func quote(_ quote: ReplyQuote) -> String {
        "↳ @\(Sanitizer.line(quote.sender.handle)): " + (quote.deleted ? "(deleted)" : Sanitizer.line(quote.text))
    }

    /// `↳ 3 replies in "deploy friday" (thread 12), last 14:05`: a thread, under its root.
    static func threadSummary(_ head: ThreadHead, root: Int64) -> String {
        let title = head.title.map { " in \"\(Sanitizer.line($0))\"" } ?? ""
        let last = head.lastActivity.map { ", last \(time($0))" } ?? ""
        return "↳ \(head.replies) repl\(head.replies == 1 ? "y" : "ies")\(title) (thread \(root))\(last)"
    }

    /// `[👍 2 🎉 1]`.
    static func reactions(_ counts: [ReactionCount]) -> String {
        "[" + counts.map { "\(Sanitizer.line($0.emoji)) \($0.count)" }.joined(separator: " ") + "]"
    }

    /// Bold yellow: a line that mentions the user.
    static func highlight(_ text: String) -> String {
        "\u{1B}[1;\(Colour.yellow.rawValue)m\(text)\u{1B}[0m"
    }

    /// A line for an event, or nil for events not worth a line.
    static func event(_ event: ChatEvent, me: UserID?, myHandle: String? = nil, colour: Bool) -> String? {
        let line: String
        switch event {
        case .message(let data):
            return message(data.message, in: data.chat, me: me, myHandle: myHandle, colour: colour)
        case .messageEdited(let data):
            let text = Sanitizer.line(data.message.text)
            line = "* \(user(data.message.sender)) edited message \(data.message.seq) in \(label(data.chat, me: me)): \(text)"
        case .messageDeleted(let data):
            line =
                "* message \(data.message.seq) of \(user(data.message.sender)) in \(label(data.chat, me: me)) was deleted"
                + (data.by.map { " by \(user($0))" } ?? "")
        case .reactionChanged(let change):
            let verb = change.added ? "reacted \(Sanitizer.line(change.emoji)) to" : "took back \(Sanitizer.line(change.emoji)) on"
            let counts = change.reactions.isEmpty ? "" : " " + reactions(change.reactions)
            line = "* \(user(change.user)) \(verb) message \(change.seq) in \(label(change.chat, me: me))\(counts)"
        case .chatUpdated(let change):
            let place = label(change.chat, me: me)
            switch change.what {
            case .topic:
                line =
                    change.chat.topic.map { "* \(user(change.by)) set the topic of \(place): \(Sanitizer.line($0))" }
                    ?? "* \(user(change.by)) cleared the topic of \(place)"
            case .rules, .bans:
                // A ban shows as the rules it leaves (who is banned is /bans).
                line = "* \(user(change.by)) changed the rules of \(place): \(rules(change.chat))"
            }
        case .away(let notice):
            line = "* \(user(notice.user)) is away: \(Sanitizer.line(notice.message))"
        case .renamed(let change) where change.previousHandle == change.user.handle:
            line = "* \(user(change.user)) now goes by \(Sanitizer.line(change.user.displayName))"
        case .renamed(let change):
            line = "* @\(Sanitizer.line(change.previousHandle)) is now \(user(change.user))"
        case .invited(let notice):
            let group = "#\(notice.chat.handle ?? String(notice.chat.id.rawValue))"
            line = "* \(user(notice.by)) invites you to \(group): /join \(group)"
        case .reminder(let reminder):
            let place = reminder.place.map { " in \(Sanitizer.line($0))" } ?? ""
            let late = reminder.firedAt.map { $0.timeIntervalSince(reminder.dueAt) > 60 } ?? false
            line =
                "⏰ reminder\(place), set \(time(reminder.createdAt))\(late ? ", due \(time(reminder.dueAt))" : ""): \(Sanitizer.line(reminder.text))"
            return colour ? highlight(line) : line
        case .wallops(let notice):
            line = "! operators' notice from \(user(notice.from)): \(Sanitizer.line(notice.text))"
            return colour ? highlight(line) : line
        case .typing, .tagged, .notifyChanged:
            return nil
        case .threadUpdated(let update):
            let place = "\(label(update.chat, me: me))/\(update.root)"
            line =
                "* \(user(update.by)) "
                + (update.title.map { "named thread \(place) \"\(Sanitizer.line($0))\"" } ?? "opened thread \(place)")
        case .chatCreated(let data):
            line = "* \(user(data.by)) started a chat with you"
            _ = data
        case .memberJoined(let change):
            if let by = change.by {
                line = "* \(user(change.user)) was added to \(label(change.chat, me: me)) by \(user(by))"
            } else {
                line = "* \(user(change.user)) joined \(label(change.chat, me: me))"
            }
        case .memberLeft(let change):
            line = "* \(user(change.user)) left \(label(change.chat, me: me))" + (change.reason.map { " (\(Sanitizer.line($0)))" } ?? "")
        case .memberKicked(let change):
            line =
                "* \(user(change.user)) was removed from \(label(change.chat, me: me))" + (change.by.map { " by \(user($0))" } ?? "")
                + (change.reason.map { ": \(Sanitizer.line($0))" } ?? "")
        case .roleChanged(let change):
            line = "* \(user(change.user)) is now \(change.role?.rawValue ?? "member") of \(label(change.chat, me: me))"
        case .readMarkerMoved, .chatDeleted:
            return nil
        case .presenceChanged(let change):
            guard change.viewing == nil || !change.online else { return nil }
            if change.viewing != nil { return nil }
            if let away = change.away, change.online {
                line = "* \(user(change.user)) is away: \(Sanitizer.line(away))"
            } else {
                line =
                    "* \(user(change.user)) is \(change.online ? "online" : "offline")"
                    + (change.reason.map { " (\(Sanitizer.line($0)))" } ?? "")
            }
        }
        return colour ? paint(line, .dim) : line
    }

    public static func chatSummary(_ summary: ChatSummary, me: UserID?) -> String {
        let place = label(summary.chat, me: me)
        var counts: [String] = []
        if summary.unread > 0 { counts.append("\(summary.unread) unread") }
        if summary.mentions > 0 { counts.append("\(summary.mentions) mention\(summary.mentions == 1 ? "" : "s")") }
        switch summary.notify {
        case .nothing?: counts.append("muted")
        case .mentions?: counts.append("mentions only")
        case .all?: counts.append("every message")
        case nil: break
        }
        let unread = counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"
        let last =
            summary.lastMessage.map { message in
                var text = Sanitizer.line(message.text)
                if let media = message.media { text = "[\(media.kind.rawValue)]" + (text.isEmpty ? "" : " " + text) }
                if message.isDeleted { text = "(deleted)" }
                let short = text.count > 60 ? String(text.prefix(59)) + "…" : text
                return " [\(time(message.sentAt))] <\(Sanitizer.line(message.sender.handle))> \(short)"
            } ?? " (no messages)"
        return "\(place)\(unread)\(last)"
    }

    /// `topic: admins, @all: anyone`.
    static func rules(_ chat: Chat) -> String {
        "topic: \(chat.anyoneSetsTopic ? "anyone" : "admins"), @all: \(chat.anyoneMentionsAll ? "anyone" : "admins"), "
            + "posting: \(chat.moderated ? "voiced" : "anyone"), \(chat.isPublic ? "public" : "private")"
            + (chat.isPublic && chat.unlisted ? " (unlisted)" : "") + ", "
            + "limit: \(chat.memberLimit.map(String.init) ?? "none"), key: \(chat.keyed ? "set" : "none")" + retention(chat)
    }

    /// `, messages kept 30 days (the server keeps them 90)`.
    static func retention(_ chat: Chat) -> String {
        let server = chat.serverRetentionDays.map { "the server keeps them \($0) days" }
        guard let days = chat.retentionDays else { return server.map { ", messages kept: \($0)" } ?? "" }
        return ", messages kept \(days) days" + (server.map { " (\($0))" } ?? "")
    }

    /// `[image PNG 640×480 12.3 KiB]`, `[video MP4 98.2 MiB]`.
    public static func media(_ media: MediaInfo) -> String {
        var parts = [media.kind.rawValue]
        if let name = media.name { parts.append(Sanitizer.line(name)) }
        parts.append(Sanitizer.line(media.typeName))
        if let width = media.width, let height = media.height { parts.append("\(width)×\(height)") }
        parts.append(byteCount(media.size))
        return "[" + parts.joined(separator: " ") + "]"
    }

    public static func profile(_ user: User) -> String {
        var line = "@\(Sanitizer.line(user.handle)) \(Sanitizer.line(user.displayName))"
        if let email = user.email { line += " <\(Sanitizer.line(email))>" }
        if user.isBot { line += user.owner.map { " [bot of @\(Sanitizer.line($0))]" } ?? " [bot]" }
        if user.avatar != nil { line += " (has avatar)" }
        return line
    }
}

extension Format {
    private static let dayFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }()

    public static func day(_ date: Date) -> String { dayFormatter.string(from: date) }

    /// `2026-11-24 14:03`, in local time.
    public static func moment(_ date: Date) -> String { day(date) + " " + time(date) }
}
