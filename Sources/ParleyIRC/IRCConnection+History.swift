import Foundation
import ParleyCore
import ParleyEngine

/// IRCv3 `draft/chathistory`: a client fills its buffer from Parley's history, a page at
/// a time, in a `chathistory` batch. Messages are referred to by the msgid the gateway
/// gives them (`CHAT-SEQ`; `MSGREFTYPES=msgid`): sequence numbers in a chat have no gaps,
/// so a page after a message is a range of them.
extension IRCConnection {
    /// The most messages one CHATHISTORY asks for (`CHATHISTORY=` in 005).
    static let maxHistoryPage = 100

    func chathistory(_ message: IRCMessage) async throws {
        let sub = try parameter(message, 0).uppercased()
        let target = try parameter(message, 1)
        guard let limitText = message.params.last, let asked = Int(limitText), asked >= 1, message.params.count >= 4 else {
            fail("CHATHISTORY", "INVALID_PARAMS", [sub, "Give a subcommand, a target, references and a limit"])
            return
        }
        let limit = min(asked, Self.maxHistoryPage)
        if sub == "TARGETS" {
            try await historyTargets(message, limit: limit)
            return
        }
        let chat: Chat
        // A thread's channel (`#ops/12`) pages its thread.
        let flow = Self.threadChannel(target).map { HistoryFlow.thread($0.root) } ?? .all
        do {
            chat = try await historyChat(target)
        } catch {
            fail("CHATHISTORY", "INVALID_TARGET", [sub, target, "No such channel or nick, or not yours to read"])
            return
        }
        func reference(_ index: Int) -> Int64?? {
            let text = message.params[index]
            if text == "*" { return .some(nil) }
            guard text.hasPrefix("msgid="), let (chatID, seq) = Self.position(fromMsgid: String(text.dropFirst(6))),
                chatID == chat.id.rawValue
            else { return nil }
            return .some(seq)
        }
        var messages: [Message] = []
        switch sub {
        case "LATEST":
            guard let after = reference(2) else { return badReference(sub, target) }
            messages = try await session.history(chat: chat.id, flow: flow, after: after ?? 0, before: nil, limit: limit)
        case "BEFORE":
            guard let before = reference(2), let before else { return badReference(sub, target) }
            messages = try await session.history(chat: chat.id, flow: flow, after: 0, before: before, limit: limit)
        case "AFTER":
            guard let after = reference(2), let after else { return badReference(sub, target) }
            messages = try await oldest(chat.id, flow: flow, after: after, before: nil, limit: limit)
        case "AROUND":
            guard let around = reference(2), let around else { return badReference(sub, target) }
            let earlier = try await session.history(chat: chat.id, flow: flow, after: 0, before: around &+ 1, limit: (limit + 1) / 2)
            let later = limit >= 2 ? try await oldest(chat.id, flow: flow, after: around, before: nil, limit: limit / 2) : []
            messages = earlier + later
        case "BETWEEN":
            guard message.params.count >= 5, let first = reference(2), let first, let second = reference(3), let second else {
                return badReference(sub, target)
            }
            messages =
                first < second
                ? try await oldest(chat.id, flow: flow, after: first, before: second, limit: limit)
                : try await session.history(chat: chat.id, flow: flow, after: second, before: first, limit: limit)
        default:
            fail("CHATHISTORY", "INVALID_PARAMS", [sub, "Unknown subcommand"])
            return
        }
        sendHistory(messages, in: chat, target: target, thread: Self.threadChannel(target) != nil)
    }

    /// TARGETS timestamp=A timestamp=B limit: the chats whose latest message falls
    /// between the two times, earliest first, each with that message's time.
    private func historyTargets(_ message: IRCMessage, limit: Int) async throws {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        func time(_ text: String) -> Date? {
            guard text.hasPrefix("timestamp=") else { return nil }
            return try? style.parse(String(text.dropFirst("timestamp=".count)))
        }
        guard let first = time(message.params[1]), let second = time(message.params[2]), let me = view.me else {
            fail("CHATHISTORY", "INVALID_PARAMS", ["TARGETS", "Give two timestamp= bounds and a limit"])
            return
        }
        // Compared to the millisecond, as times are stored and written: a parsed time and
        // a stored one may differ in the last bits of a Double.
        func milliseconds(_ date: Date) -> Double { (date.timeIntervalSince1970 * 1000).rounded() }
        let (low, high) = (milliseconds(min(first, second)), milliseconds(max(first, second)))
        let found = try await session.chats().compactMap { summary -> (target: String, at: Date)? in
            guard let last = summary.lastMessage, milliseconds(last.sentAt) > low, milliseconds(last.sentAt) < high else { return nil }
            if let channel = IRCView.channel(summary.chat) { return (channel, last.sentAt) }
            guard let peer = summary.chat.peer(of: me.id), peer.id != me.id else { return nil }
            return (peer.handle, last.sentAt)
        }
        nextBatch &+= 1
        let id = "h\(nextBatch)"
        var lines = [IRCMessage(source: serverName, command: "BATCH", params: ["+" + id, "draft/chathistory-targets"])]
        for target in found.sorted(by: { $0.at < $1.at }).prefix(limit) {
            lines.append(
                IRCMessage(
                    tags: ["batch": id], source: serverName, command: "CHATHISTORY",
                    params: ["TARGETS", target.target, IRCView.timestamp(target.at)]))
        }
        lines.append(IRCMessage(source: serverName, command: "BATCH", params: ["-" + id]))
        emit(lines)
    }

    /// The oldest `limit` messages after `after` (and before `before`).
    private func oldest(_ chat: ChatID, flow: HistoryFlow, after: Int64, before: Int64?, limit: Int) async throws -> [Message] {
        if case .thread(let root) = flow {
            // A thread's numbers have gaps: its oldest after `after` are found a window of
            // numbers at a time, up to its last message.
            let last = min(try await session.thread(chat: chat, root: root).lastSeq ?? 0, (before ?? Int64.max) &- 1)
            var found: [Message] = []
            var from = after
            while found.count < limit, from < last {
                let bound = min(from &+ min(Int64(Limits.maxPageSize), last &- from) &+ 1, before ?? Int64.max)
                let page = try await session.history(chat: chat, flow: flow, after: from, before: bound, limit: Limits.maxPageSize)
                found += page.prefix(limit - found.count)
                from = bound &- 1
            }
            return found
        }
        let (end, overflow) = after.addingReportingOverflow(Int64(limit) + 1)
        let bound = overflow ? Int64.max : end
        return try await session.history(chat: chat, flow: flow, after: after, before: before.map { min($0, bound) } ?? bound, limit: limit)
    }

    /// The chat a target names: a channel, or the direct chat with a nick.
    func historyChat(_ target: String) async throws -> Chat {
        if target.hasPrefix("#") { return try await session.chat(try await channelChat(target).id) }
        let user = try await session.user(handle: target)
        guard let chat = try await session.directChat(with: user.id) else {
            throw ParleyError(.unknownChat, "no messages with \(target) yet")
        }
        return chat
    }

    private func badReference(_ sub: String, _ target: String) {
        fail("CHATHISTORY", "INVALID_MSGREFTYPE", [sub, target, "Refer to messages as msgid=… from this chat, or *"])
    }

    /// `FAIL COMMAND CODE context… :text`, IRCv3's standard reply.
    func fail(_ command: String, _ code: String, _ params: [String]) {
        emit(IRCMessage(source: serverName, command: "FAIL", params: [command, code] + params))
    }

    /// The messages in a `chathistory` batch, each line tagged with it.
    func sendHistory(_ messages: [Message], in chat: Chat, target: String, thread: Bool = false) {
        guard let me = view.me else { return }
        nextBatch &+= 1
        let id = "h\(nextBatch)"
        var lines = [IRCMessage(source: serverName, command: "BATCH", params: ["+" + id, "chathistory", target])]
        var capabilities = view.capabilities
        capabilities.formUnion([.serverTime, .messageTags])
        for message in messages {
            let rendered = IRCView.messageLines(
                message, in: chat, me: me, capabilities: capabilities, link: view.mediaLink, threadChannel: thread ? target : nil)
            for var line in rendered {
                // A message of several lines is a draft/multiline batch inside this one.
                if line.tags["batch"] == nil { line.tags["batch"] = id }
                lines.append(line)
            }
        }
        lines.append(IRCMessage(source: serverName, command: "BATCH", params: ["-" + id]))
        emit(lines)
    }
}
