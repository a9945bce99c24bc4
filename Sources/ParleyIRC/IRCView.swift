import Foundation
import NIOCore
import ParleyCore
import ParleyEngine
import ParleyLive
import ParleyProtocol
import Synchronization

/// What a connection's events need to know to become lines: who the user is and which
/// capabilities the client enabled. Shared by the connection, which sets it, and the
/// engine's event sink, which reads it on the publisher's task.
final class IRCView: Sendable {
    struct State {
        var me: UserRef? {
            didSet { lineShape = IRCSharedLines.shape(of: capabilities, me: me) }
        }
        /// The connection has +w or +o: WALLOPS reach it.
        var wantsWallops = false
        var capabilities: Set<IRCCapability> = [] {
            didSet { lineShape = IRCSharedLines.shape(of: capabilities, me: me) }
        }
        /// Which of the capabilities a message's line depends on are enabled.
        var lineShape = 0
        /// The channels the client has been told it is in, by lowercased name, and each
        /// one's name by chat (for events that name only the chat). Kept here only: the
        /// connection's commands and its deliveries read and change the same.
        var joined: [String: Chat] = [:]
        var channels: [ChatID: String] = [:]

        /// The thread channels (`#ops/12`) the client joined, by lowercased name, and each
        /// one's name by chat and root.
        var joinedThreads: [String: (chat: Chat, root: Int64)] = [:]
        var threadNames: [ThreadSpot: String] = [:]

        mutating func forget(_ chat: ChatID) {
            for (spot, name) in threadNames where spot.chat == chat {
                threadNames[spot] = nil
                joinedThreads[name.lowercased()] = nil
            }
            guard let name = channels.removeValue(forKey: chat) else { return }
            joined[name.lowercased()] = nil
        }
        /// Monitored nicks (lowercased) and whether each was last said to be online.
        var monitored: [String: Bool] = [:]
        /// Nicks being added to the watch list, and what a presence event said of one
        /// meanwhile (newer than the engine's answer, which may have been read before it).
        var adding: [String: Bool?] = [:]
    }

    let serverName: String
    /// Read and changed only by IRCView and its extensions.
    let state = Mutex(State())

    /// Who is signed in through this gateway, for real names in extended-join.
    let people: IRCPeople?
    /// A browser link to media for a user (a signed, expiring one), when the server
    /// serves media over HTTP.
    let mediaLink: @Sendable (String, UserID) -> String?

    init(serverName: String, people: IRCPeople? = nil, mediaLink: @escaping @Sendable (String, UserID) -> String? = { _, _ in nil }) {
        self.serverName = serverName
        self.people = people
        self.mediaLink = mediaLink
    }

    var me: UserRef? { state.withLock { $0.me } }
    var capabilities: Set<IRCCapability> { state.withLock { $0.capabilities } }

    func signedIn(as user: UserRef) { state.withLock { $0.me = user } }
    func wantsWallops(_ wanted: Bool) { state.withLock { $0.wantsWallops = wanted } }

    /// The chat of a channel the client is in.
    func joined(_ channel: String) -> Chat? { state.withLock { $0.joined[channel.lowercased()] } }

    /// Keeps `chat` as the channel `channel`, newer than what was kept; true if the
    /// client was not in it yet.
    @discardableResult
    func enter(_ chat: Chat, as channel: String) -> Bool {
        state.withLock { state in
            let first = state.joined[channel.lowercased()] == nil
            state.joined[channel.lowercased()] = chat
            state.channels[chat.id] = channel
            return first
        }
    }

    /// Keeps the newer `chat` of a channel the client is in (nothing if it isn't).
    func refresh(_ chat: Chat) {
        state.withLock { state in
            guard let channel = state.channels[chat.id] else { return }
            state.joined[channel.lowercased()] = chat
        }
    }

    /// The client is no longer in `chat`.
    func forget(_ chat: ChatID) { state.withLock { $0.forget(chat) } }

    /// Nicks about to be watched: a presence event for one before `monitor` is kept
    /// for it rather than lost.
    func willMonitor(_ nicks: [String]) {
        state.withLock { state in
            for nick in nicks where state.monitored[nick.lowercased()] == nil { state.adding[nick.lowercased()] = .some(nil) }
        }
    }

    /// Records who of the watched is online, and returns them as last heard of: an
    /// event that came while they were being added wins over the engine's answer.
    @discardableResult
    func monitor(_ watched: [WatchedPresence]) -> [WatchedPresence] {
        state.withLock { state in
            var reported = watched
            for index in reported.indices {
                let key = reported[index].handle.lowercased()
                if case .some(.some(let online)) = state.adding[key] { reported[index].online = online }
                state.monitored[key] = reported[index].online
            }
            state.adding.removeAll()
            return reported
        }
    }

    func unmonitor(_ nicks: [String]?) {
        state.withLock { state in
            guard let nicks else { return state.monitored.removeAll() }
            for nick in nicks { state.monitored[nick.lowercased()] = nil }
        }
    }

    /// 730 or 731 when a monitored nick came online or went since last said.
    private func monitorLine(_ change: PresenceChange, me: UserRef) -> IRCMessage? {
        let key = change.user.handle.lowercased()
        let changed: Bool = state.withLock { state in
            if state.adding[key] != nil {
                state.adding[key] = .some(change.online)
                return false
            }
            guard let was = state.monitored[key], was != change.online else { return false }
            state.monitored[key] = change.online
            return true
        }
        guard changed else { return nil }
        return change.online
            ? IRCMessage(source: serverName, command: IRCNumeric.monOnline, params: [me.handle, Self.prefix(change.user)])
            : IRCMessage(source: serverName, command: IRCNumeric.monOffline, params: [me.handle, change.user.handle])
    }
    func enable(_ capabilities: some Sequence<IRCCapability>) { state.withLock { $0.capabilities.formUnion(capabilities) } }
    func disable(_ capabilities: some Sequence<IRCCapability>) { state.withLock { $0.capabilities.subtract(capabilities) } }

    /// The lines of an event that every client with the same capabilities gets alike
    /// (a text in a group), serialized once for all of them; nil for any other event.
    func sharedLines(for event: PositionedEvent) -> ByteBuffer? {
        // Asked for each recipient: the channel's name is made only for the lines.
        guard case .message(let sent) = event.event, sent.message.media == nil, sent.chat.kind == .group, sent.chat.handle != nil
        else { return nil }
        let (me, shape, capabilities) = state.withLock { ($0.me, $0.lineShape, $0.capabilities) }
        // Its own reply, from another of the user's clients, reads as written (below).
        guard let me, (sent.message.replyTo == nil && sent.message.thread == nil) || sent.message.sender.id != me.id else { return nil }
        // A thread the client follows in a channel of its own reads there.
        if let root = sent.message.thread, threadChannel(of: sent.chat.id, root: root) != nil { return nil }
        return event.encoded { _ in IRCSharedLines() }.lines(for: shape) {
            IRCOutput.serialize(Self.messageLines(sent.message, in: sent.chat, me: me, capabilities: capabilities))
        }
    }

    /// The lines an event becomes for this client (none for what IRC has no line for).
    func lines(for event: ChatEvent) -> [IRCMessage] {
        let (me, capabilities) = state.withLock { ($0.me, $0.capabilities) }
        guard let me else { return [] }
        switch event {
        case .readMarkerMoved(let marker) where marker.user.id == me.id:
            // Moved by another of the user's clients (draft/read-marker).
            guard capabilities.contains(.readMarker), let channel = state.withLock({ $0.channels[marker.chatID] }) else {
                return []
            }
            return [IRCMessage(source: serverName, command: "MARKREAD", params: [channel, IRCConnection.position(marker)])]
        case .message(let sent):
            let lines = Self.messageLines(sent.message, in: sent.chat, me: me, capabilities: capabilities, link: mediaLink)
            // A thread the client joined as a channel has its lines there, and the
            // chat's channel only those sent to it too.
            guard let root = sent.message.thread, let name = threadChannel(of: sent.chat.id, root: root) else { return lines }
            let inThread = Self.messageLines(
                sent.message, in: sent.chat, me: me, capabilities: capabilities, link: mediaLink, threadChannel: name)
            return (sent.message.alsoToChat ? lines : []) + inThread
        case .memberJoined(let change):
            guard let channel = Self.channel(change.chat) else { return [] }
            let realname = people?.names(of: change.user.id)?.realname
            let join = Self.join(change.user, channel: channel, capabilities: capabilities, realname: realname)
            // Joined while away: said at once to clients with away-notify.
            guard let away = change.away, capabilities.contains(.awayNotify), change.user.id != me.id else { return [join] }
            return [join, IRCMessage(source: Self.prefix(change.user), command: "AWAY", params: [away])]
        case .memberLeft(let change):
            guard let channel = Self.channel(change.chat) else { return [] }
            if change.user.id == me.id { forget(change.chat.id) }
            return [IRCMessage(source: Self.prefix(change.user), command: "PART", params: [channel] + (change.reason.map { [$0] } ?? []))]
        case .memberKicked(let change):
            guard let channel = Self.channel(change.chat) else { return [] }
            if change.user.id == me.id { forget(change.chat.id) }
            let by = change.by.map(Self.prefix) ?? serverName
            // Without a comment, the kicker's nick, as IRC servers say it.
            let comment = change.reason ?? change.by?.handle ?? "kicked"
            return [IRCMessage(source: by, command: "KICK", params: [channel, change.user.handle, comment])]
        case .roleChanged(let change):
            guard let channel = Self.channel(change.chat), let role = change.role else { return [] }
            let by = change.by.map(Self.prefix) ?? serverName
            let mode = role >= .admin ? "+o" : role == .voiced ? "+v" : "-ov"
            let params = mode == "-ov" ? [channel, mode, change.user.handle, change.user.handle] : [channel, mode, change.user.handle]
            return [IRCMessage(source: by, command: "MODE", params: params)]
        case .reactionChanged(let change) where change.added:
            // A reaction, as the +draft/react client tag on a TAGMSG (IRCv3 message-tags);
            // to a client without the tags, as a short action line (`/me`).
            guard change.user.id != me.id else { return [] }
            let target: String
            if let channel = Self.channel(change.chat) {
                target = channel
            } else {
                target = me.handle
            }
            var lines: [IRCMessage] = []
            if capabilities.contains(.messageTags) {
                lines.append(
                    IRCMessage(
                        tags: ["+draft/react": change.emoji, "+draft/reply": "\(change.chat.id.rawValue)-\(change.seq)"],
                        source: Self.prefix(change.user), command: "TAGMSG", params: [target]))
            }
            if !Self.showsReactions(capabilities) {
                let about = change.to.map { " to " + Self.quoted($0) } ?? ""
                var tags: [String: String] = [:]
                if capabilities.contains(.serverTime) { tags["time"] = Self.timestamp(Date()) }
                lines.append(
                    IRCMessage(
                        tags: tags, source: Self.prefix(change.user), command: "PRIVMSG",
                        params: [target, "\u{1}ACTION reacted \(change.emoji)\(about)\u{1}"]))
            }
            return lines
        case .presenceChanged(let change) where change.user.id == me.id:
            return []
        case .presenceChanged(let change) where change.watched == true:
            // Someone the user monitors but shares no channel with; their away and back
            // too, with extended-monitor and away-notify.
            if let line = monitorLine(change, me: me) { return [line] }
            guard change.online, capabilities.isSuperset(of: [.extendedMonitor, .awayNotify]) else { return [] }
            return [IRCMessage(source: Self.prefix(change.user), command: "AWAY", params: change.away.map { [$0] } ?? [])]
        case .presenceChanged(let change) where change.online:
            var lines = monitorLine(change, me: me).map { [$0] } ?? []
            // Away and back, for clients that asked (IRCv3 away-notify).
            if capabilities.contains(.awayNotify), change.viewing == nil {
                lines.append(IRCMessage(source: Self.prefix(change.user), command: "AWAY", params: change.away.map { [$0] } ?? []))
            }
            return lines
        case .presenceChanged(let change) where Self.isGuest(change.user):
            // A guest gone is gone for good (its nick is free, it leaves its groups):
            // QUIT, as IRC says a user left the network.
            let quit = IRCMessage(source: Self.prefix(change.user), command: "QUIT", params: [change.reason ?? "Offline"])
            return [quit] + (monitorLine(change, me: me).map { [$0] } ?? [])
        case .presenceChanged(let change):
            // An account gone offline everywhere stays a member, so it stays in every
            // nick list (as Ergo's always-on clients do, and as NAMES lists it): clients
            // with away-notify see it away, with its QUIT message, until it is back.
            var lines = monitorLine(change, me: me).map { [$0] } ?? []
            if capabilities.contains(.awayNotify) {
                lines.append(IRCMessage(source: Self.prefix(change.user), command: "AWAY", params: [change.reason ?? "Offline"]))
            }
            return lines
        case .renamed(let change) where change.previousHandle == change.user.handle:
            // A new display name: IRCv3 setname (and, for a watched nick, extended-monitor).
            let needed: Set<IRCCapability> = change.watched == true ? [.setname, .extendedMonitor] : [.setname]
            guard change.user.id != me.id, capabilities.isSuperset(of: needed) else { return [] }
            return [IRCMessage(source: Self.prefix(change.user), command: "SETNAME", params: [Self.realname(change.user)])]
        case .renamed(let change):
            guard change.user.id != me.id, change.watched != true else { return [] }
            let old = UserRef(id: change.user.id, handle: change.previousHandle, displayName: "", isBot: change.user.isBot)
            return [IRCMessage(source: Self.prefix(old), command: "NICK", params: [change.user.handle])]
        case .messageEdited(let edited):
            // No IRC client edits a line in place: the new text as a new line at the time
            // of the edit, saying which line it corrects (by that line's time, to the
            // second), that a
            // client with message-tags also ties to the original (+draft/reply).
            if capabilities.contains(.messageEdit), let target = Self.target(of: edited.message, in: edited.chat, me: me) {
                // draft/message-edit: EDIT, as the client sends it, from the editor.
                var tags = [
                    "draft/target-msgid": "\(edited.chat.id.rawValue)-\(edited.message.seq)", "draft/edit-text": edited.message.text,
                ]
                if capabilities.contains(.serverTime) { tags["time"] = Self.timestamp(edited.message.editedAt ?? Date()) }
                return [IRCMessage(tags: tags, source: Self.prefix(edited.message.sender), command: "EDIT", params: [target])]
            }
            var message = edited.message
            message.text = "[edit of \(Self.moment(message.sentAt))] " + message.text
            message.sentAt = message.editedAt ?? Date()
            message.replyTo = nil
            var lines = Self.messageLines(message, in: edited.chat, me: me, capabilities: capabilities.subtracting([.messageTags]))
            if capabilities.contains(.messageTags) {
                for index in lines.indices { lines[index].tags["+draft/reply"] = "\(edited.chat.id.rawValue)-\(edited.message.seq)" }
            }
            return lines
        case .notifyChanged:
            // An IRC client keeps its own highlights (docs/irc.md).
            return []
        case .wallops(let notice):
            // To those who asked for them (+w) and operators; the sender hears it back.
            guard state.withLock({ $0.wantsWallops }) || notice.from.id == me.id else { return [] }
            return [IRCMessage(source: Self.prefix(notice.from), command: "WALLOPS", params: [notice.text])]
        case .reminder(let reminder):
            let place = reminder.place.map { " in \($0)" } ?? ""
            let text = "⏰ reminder\(place), set at \(Self.clock(reminder.createdAt)): \(reminder.text)"
            return text.split(separator: "\n").map { IRCMessage(source: serverName, command: "NOTICE", params: [me.handle, String($0)]) }
        case .typing(let typing):
            // IRCv3 +typing on a TAGMSG.
            guard capabilities.contains(.messageTags), typing.user.id != me.id else { return [] }
            let target = state.withLock { $0.channels[typing.chatID] } ?? me.handle
            return [IRCMessage(tags: ["+typing": "active"], source: Self.prefix(typing.user), command: "TAGMSG", params: [target])]
        case .tagged(let notice):
            // Client-only tags on a TAGMSG (IRCv3 message-tags).
            guard capabilities.contains(.messageTags), notice.user.id != me.id else { return [] }
            let target = notice.chatID.flatMap { chat in state.withLock { $0.channels[chat] } } ?? me.handle
            var tags = notice.tags
            tags["msgid"] = notice.id
            if capabilities.contains(.serverTime) { tags["time"] = Self.timestamp(Date()) }
            return [IRCMessage(tags: tags, source: Self.prefix(notice.user), command: "TAGMSG", params: [target])]
        case .reactionChanged(let change) where !change.added:
            // A reaction taken back, as +draft/unreact.
            guard capabilities.contains(.messageTags), change.user.id != me.id else { return [] }
            let target = Self.channel(change.chat) ?? me.handle
            return [
                IRCMessage(
                    tags: ["+draft/unreact": change.emoji, "+draft/reply": "\(change.chat.id.rawValue)-\(change.seq)"],
                    source: Self.prefix(change.user), command: "TAGMSG", params: [target])
            ]
        case .messageDeleted(let deleted):
            // IRCv3 draft/message-redaction; to a client without it, a NOTICE that says
            // which line is gone (by its sender and time, to the second).
            guard let target = Self.target(of: deleted.message, in: deleted.chat, me: me) else { return [] }
            let msgid = "\(deleted.chat.id.rawValue)-\(deleted.message.seq)"
            let by = deleted.by ?? deleted.message.sender
            guard capabilities.contains(.messageRedaction) else {
                let whose = by.id == deleted.message.sender.id ? "their" : deleted.message.sender.handle + "'s"
                let reason = deleted.reason.map { ": " + $0 } ?? ""
                return [
                    IRCMessage(
                        source: Self.prefix(by), command: "NOTICE",
                        params: [target, "[deleted \(whose) message of \(Self.moment(deleted.message.sentAt))\(reason)]"])
                ]
            }
            return [IRCMessage(source: Self.prefix(by), command: "REDACT", params: [target, msgid] + (deleted.reason.map { [$0] } ?? []))]
        case .chatDeleted(let deleted):
            // Its members are out of it: a PART of their own, as a server that removes
            // someone from a channel says it.
            let channel = state.withLock { state in
                defer { state.forget(deleted.chatID) }
                return state.channels[deleted.chatID]
            }
            guard let channel else { return [] }
            return [IRCMessage(source: Self.prefix(me), command: "PART", params: [channel, "This group was deleted"])]
        case .invited(let notice):
            guard let channel = Self.channel(notice.chat) else { return [] }
            let tags = capabilities.contains(.accountTag) && !Self.isGuest(notice.by) ? ["account": notice.by.handle] : [:]
            return [IRCMessage(tags: tags, source: Self.prefix(notice.by), command: "INVITE", params: [me.handle, channel])]
        case .threadUpdated(let update):
            // A thread's channel the client is in takes its new title as its topic.
            guard let name = threadChannel(of: update.chatID, root: update.root), let title = update.title else { return [] }
            return [IRCMessage(source: Self.prefix(update.by), command: "TOPIC", params: [name, title])]
        case .chatUpdated(let update):
            guard let channel = Self.channel(update.chat) else { return [] }
            refresh(update.chat)
            switch update.what {
            case .topic:
                return [IRCMessage(source: Self.prefix(update.by), command: "TOPIC", params: [channel, update.chat.topic ?? ""])]
            case .rules:
                // What changed, as a MODE line (+m, -i, +l 50, +k *…), and a NOTICE for a new
                // retention policy, which no mode shows; nothing if nothing IRC shows did.
                guard let before = update.before else { return [] }
                var lines: [IRCMessage] = []
                if let modes = IRCModeEcho.changes(from: before, to: update.chat) {
                    lines.append(IRCMessage(source: Self.prefix(update.by), command: "MODE", params: [channel] + modes))
                }
                if before.retentionDays != update.chat.retentionDays {
                    let kept = update.chat.retentionDays.map { "\($0) days" } ?? "as long as the server keeps them"
                    lines.append(
                        IRCMessage(
                            source: Self.prefix(update.by), command: "NOTICE", params: [channel, "[\(channel) now keeps messages \(kept)]"])
                    )
                }
                return lines
            case .bans:
                // The event does not say whom; a client asks with MODE #channel +b.
                return []
            }
        default:
            return []
        }
    }
}
