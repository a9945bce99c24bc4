import Foundation
public import ParleyCore

extension Shell {
    func msg(_ input: inout CommandInput) async throws {
        let (target, text) = try Self.msgParts(&input)
        try await sendText(to: target, text)
    }

    func send(_ input: inout CommandInput) async throws {
        let (target, text) = try Self.sendParts(&input)
        try await sendText(to: target, text)
    }

    static func msgParts(_ input: inout CommandInput) throws(ParleyError) -> (target: String?, text: String) {
        guard let target = try input.target(), target.hasPrefix("@") else { throw ParleyError(.usage, "/msg @H TEXT") }
        let text = try input.text()
        guard !text.isEmpty else { throw ParleyError(.usage, "/msg @H TEXT") }
        return (target, text)
    }

    static func sendParts(_ input: inout CommandInput) throws(ParleyError) -> (target: String?, text: String) {
        let target = try input.target()
        let text = try input.text()
        guard !text.isEmpty else { throw ParleyError(.usage, "/send [#G|@H] TEXT") }
        return (target, text)
    }

    /// Whether a line only sends text: a command with `textParts` (`/send`, `/msg`, or an
    /// alias), or a line that is not a command. Such lines can run as one batch
    /// (`executeSends`).
    public nonisolated static func sendsText(_ line: String) -> Bool {
        guard let (name, _) = split(line) else { return true }
        return CommandTable.command(named: String(name))?.textParts != nil
    }

    /// The target word and text of a line for which `sendsText` is true.
    private func sendParts(of line: String) throws(ParleyError) -> (target: String?, text: String) {
        guard let (name, rest) = Self.split(line) else {
            var input = CommandInput(Self.plainText(line), tokenizer: tokenizer)
            return (nil, try input.text())
        }
        guard let parts = CommandTable.command(named: String(name))?.textParts else {
            throw ParleyError(.unknownCommand, "unknown command /\(name)")
        }
        var input = CommandInput(String(rest), tokenizer: tokenizer)
        return try parts(&input)
    }

    /// Runs lines for which `sendsText` is true as if one after another, but sends
    /// their texts as one batch (one commit in the engine). Stops at the first line that
    /// fails and returns how many lines ran before it, with its error.
    public func executeSends(_ lines: [String]) async -> (done: Int, failure: ParleyError?) {
        var batch: [OutgoingText] = []
        var targets: [ChatTarget] = []
        var resolved: [String: ChatTarget] = [:]
        var stop: ParleyError?
        for line in lines {
            do {
                let (word, text) = try sendParts(of: line)
                let key = word ?? ""
                let target: ChatTarget
                if let known = resolved[key] { target = known } else { target = try await self.target(word) }
                resolved[key] = target
                guard let recipient = target.recipient else { throw ParleyError(.noCurrentChat, "no chat to send to") }
                batch.append(OutgoingText(to: recipient, text: text, via: settings.via, thread: target.thread))
                targets.append(target)
            } catch {
                stop = ParleyError(error)
                break
            }
        }
        guard !batch.isEmpty else { return (0, stop) }
        let result = await service.sendMessages(batch)
        var settled: [ChatID: ChatTarget] = [:]
        for (message, target) in zip(result.sent, targets) {
            do {
                var target = target
                if let known = settled[message.chatID] { target = known } else { target = try await settle(target, after: message) }
                settled[message.chatID] = target
                show(message, in: target, command: "send")
            } catch {
                return (result.sent.count, ParleyError(error))
            }
        }
        guard let failure = result.failure else { return (batch.count, stop) }
        let done = result.sent.count
        guard failure.code == .pending else { return (done, failure) }
        // Kept in the outbox: not an error. The rest are sent (or kept) in turn.
        showPending(batch[done].text, to: targets[done], failure)
        let rest = await executeSends(Array(lines[(done + 1)...]))
        return (done + 1 + rest.done, rest.failure)
    }

    func query(_ input: inout CommandInput) async throws {
        guard let word = try input.target(), word.hasPrefix("@") else { throw ParleyError(.usage, "/query @H") }
        try noMoreArguments(input)
        let target = try await target(word)
        try await makeCurrent(target)
        output.result("query", ["Now talking with \(target.label)"], json: ["chat": target.label])
    }

    func switchChat(_ input: inout CommandInput) async throws {
        guard let word = try input.target() else { throw ParleyError(.usage, "/switch #G|@H") }
        try noMoreArguments(input)
        let target = try await target(word)
        var topic: String?
        if word.hasPrefix("#"), let chat = target.chat { topic = try await service.chat(chat.id).topic }
        try await makeCurrent(target)
        output.result(
            "switch", ["Now in \(target.label)"] + (topic.map { ["Topic: \(Sanitizer.line($0))"] } ?? []), json: ["chat": target.label])
    }

    func makeCurrent(_ target: ChatTarget) async throws {
        current = target
        coolDown(target)
        try? await service.setViewing(target.chat?.id)
    }

    func history(_ input: inout CommandInput) async throws {
        let target = try input.target()
        let options = try input.options(values: ["before"])
        guard options.positional.count <= 1 else { throw ParleyError(.usage, "/history [#G|@H] [N] [--before SEQ]") }
        let count =
            try options.positional.first.map { text -> Int in
                guard let count = Int(text) else { throw ParleyError(.usage, "N must be a number, not '\(text)'") }
                return count
            } ?? 20
        let before = try options.values["before"].map { text -> Int64 in
            guard let seq = Int64(text) else { throw ParleyError(.usage, "--before takes a sequence number") }
            return seq
        }
        let (chat, found) = try await existingChat(target)
        // A chat's main flow, each thread a line under its root; or one thread's messages.
        let flow = found.thread.map(HistoryFlow.thread) ?? .main
        let messages = try await history(of: chat.id, count: count, before: before, flow: flow)
        let lines = messages.flatMap { historyLines($0, in: chat) }
        output.result("history", lines.isEmpty ? ["No messages"] : lines, json: messages)
    }

    /// The last `count` messages before `before`, oldest first, asked for a page at a
    /// time (a page holds at most `Limits.maxPageSize`), so any count can be read.
    func history(of chat: ChatID, count: Int, before: Int64?, flow: HistoryFlow = .all) async throws -> [Message] {
        guard count > Limits.maxPageSize else { return try await service.history(chat: chat, flow: flow, limit: count, before: before) }
        var pages: [[Message]] = []
        var (cursor, got) = (before, 0)
        while got < count {
            let page = try await service.history(chat: chat, flow: flow, limit: min(Limits.maxPageSize, count - got), before: cursor)
            guard let oldest = page.first?.seq else { break }
            pages.append(page)
            (cursor, got) = (oldest, got + page.count)
        }
        return pages.reversed().flatMap { $0 }
    }

    func read(_ input: inout CommandInput) async throws {
        let target = try input.target()
        try noMoreArguments(input)
        let (chat, found) = try await existingChat(target)
        let last = try await service.history(chat: chat.id, limit: 1, before: nil).last?.seq ?? 0
        let marker = try await service.markRead(chat: chat.id, upTo: last)
        output.result("read", ["\(found.label) read up to \(marker.seq)"], json: marker)
    }

    func seen(_ input: inout CommandInput) async throws {
        let target = try input.target()
        let word = try input.word()
        try noMoreArguments(input)
        let (chat, found) = try await existingChat(target)
        let seq: Int64
        if let word {
            guard let number = Int64(word) else { throw ParleyError(.usage, "/seen [#G|@H] [SEQ]") }
            seq = number
        } else {
            guard let last = try await service.history(chat: chat.id, limit: 1, before: nil).last else {
                throw ParleyError(.unknownMessage, "\(found.label) has no messages")
            }
            seq = last.seq
        }
        let readers = try await service.seenBy(chat: chat.id, seq: seq)
        let names = readers.map { Format.user($0.user) }.joined(separator: ", ")
        output.result("seen", [readers.isEmpty ? "Message \(seq) not seen yet" : "Message \(seq) seen by \(names)"], json: readers)
    }

    func deleteChat(_ input: inout CommandInput) async throws {
        let target = try input.target()
        try noMoreArguments(input)
        let (chat, found) = try await existingChat(target)
        try await service.deleteChat(chat.id)
        if current?.chat?.id == chat.id { current = nil }
        output.result("delete-chat", ["Deleted \(found.label) from your chats"], json: ["chat_id": chat.id.rawValue])
    }

    /// `42. [14:03] #swift <alice> …` for messages from any of the user's chats.
    func numberedLines(_ messages: [Message]) async throws -> [String] {
        var chats: [ChatID: Chat] = [:]
        var lines: [String] = []
        for message in messages {
            if chats[message.chatID] == nil { chats[message.chatID] = try await service.chat(message.chatID) }
            if let chat = chats[message.chatID] {
                lines.append(Format.numbered(message.seq, Format.message(message, in: chat, me: me?.id, colour: output.style == .colour)))
            }
        }
        return lines
    }

    func chats(_ input: inout CommandInput) async throws {
        try noMoreArguments(input)
        let me = try requireMe()
        let list = try await service.chats()
        let lines = list.map { Format.chatSummary($0, me: me.id) }
        output.result("chats", lines.isEmpty ? ["No chats yet: /msg @user TEXT or /join #group"] : lines, json: list)
    }

    func wait(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["timeout"])
        _ = try requireMe()
        var words = options.positional
        var target: ChatTarget?
        if let first = words.first, first.hasPrefix("#") || first.hasPrefix("@"), words.count > 1 {
            target = try await self.target(first)
            words.removeFirst()
        }
        guard !words.isEmpty else { throw ParleyError(.usage, "/wait [--timeout S] [#G|@H|#G/N] REGEX") }
        let pattern = words.joined(separator: " ")
        let regex: NSRegularExpression
        do { regex = try NSRegularExpression(pattern: pattern) } catch {
            throw ParleyError(.usage, "'\(pattern)' is not a regular expression")
        }
        let timeout = try options.values["timeout"].map { text throws(ParleyError) in try DurationText.parse(text) } ?? .seconds(10)
        let chatID = target?.chat?.id
        let peerID = target?.peer?.id
        // `#ops/12`: a message of that thread.
        let thread = target?.thread
        let matcher = RegexBox(regex)
        let found = await inbox.wait(timeout: timeout) { event in
            if let chatID, event.chat.id != chatID { return false }
            if let thread, event.message.thread != thread { return false }
            if chatID == nil, let peerID, !event.chat.participants.contains(where: { $0.id == peerID }) { return false }
            return matcher.matches(event.message.text)
        }
        guard let found else {
            throw ParleyError(.timeout, "no message matching /\(pattern)/ within \(options.values["timeout"] ?? "10") s")
        }
        output.result(
            "wait", [Format.message(found.message, in: found.chat, me: me?.id, colour: output.style == .colour)], json: found)
    }
}

/// NSRegularExpression is immutable and thread-safe, but not marked Sendable.
struct RegexBox: @unchecked Sendable {
    let regex: NSRegularExpression
    init(_ regex: NSRegularExpression) { self.regex = regex }
    func matches(_ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}
