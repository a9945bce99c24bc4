import ParleyCore

/// Threads in the shell: `/thread N` enters the thread of message N (the prompt names it
/// `#ops/12`, and lines typed go there), `/thread` alone goes back to the chat's main
/// flow, `/threads` lists a chat's threads, `/follow` and `/unfollow` choose which reach
/// the user live and in the hotlist. In the main flow a thread is one summary line under
/// its root.
extension Shell {
    func thread(_ input: inout CommandInput) async throws {
        let target = try input.target()
        guard let word = try input.word() else {
            try noMoreArguments(input)
            guard let current, current.thread != nil else { throw ParleyError(.usage, "/thread [#G|@H] N [TITLE]") }
            let main = current.mainFlow
            try await makeCurrent(main)
            output.result("thread", ["Back in \(main.label)"], json: ["chat": main.label])
            return
        }
        guard let seq = Int64(word), seq > 0 else { throw ParleyError(.usage, "/thread [#G|@H] N [TITLE]: N is a message's number") }
        let title = try input.text()
        let (chat, found) = try await existingChat(target)
        let thread = try await service.openThread(chat: chat.id, seq: seq, title: title.isEmpty ? nil : title)
        let entered = found.inThread(thread.root)
        try await makeCurrent(entered)
        let lines = try await threadLines(thread, in: chat, count: 20)
        if let last = thread.lastSeq { _ = try? await service.markThreadRead(chat: chat.id, root: thread.root, upTo: last) }
        output.result("thread", ["Now in \(Self.describe(thread, at: entered.label))"] + lines, json: thread)
    }

    func threads(_ input: inout CommandInput) async throws {
        let target = try input.target()
        try noMoreArguments(input)
        let (chat, found) = try await existingChat(target)
        let threads = try await service.threads(in: chat.id, limit: 50)
        let place = found.mainFlow.label
        let lines = threads.flatMap { thread in
            let root = thread.rootMessage.map {
                "  " + Format.quote(ReplyQuote(seq: $0.seq, sender: $0.sender, text: $0.text, deleted: $0.isDeleted))
            }
            return [Self.describe(thread, at: "\(place)/\(thread.root)")] + (root.map { [$0] } ?? [])
        }
        output.result("threads", lines.isEmpty ? ["No threads in \(place)"] : lines, json: threads)
    }

    func follow(_ input: inout CommandInput) async throws {
        try await setFollowing(.following, &input, command: "follow")
    }

    func unfollow(_ input: inout CommandInput) async throws {
        try await setFollowing(.muted, &input, command: "unfollow")
    }

    private func setFollowing(_ following: ThreadFollowing, _ input: inout CommandInput, command: String) async throws {
        let target = try input.target()
        let word = try input.word()
        try noMoreArguments(input)
        let (chat, found) = try await existingChat(target)
        let usage = ParleyError(.usage, "/\(command) [#G|@H] [N]: in a thread, or naming its root's number")
        let root: Int64
        if let word {
            guard let number = Int64(word), number > 0 else { throw usage }
            root = number
        } else {
            guard let thread = found.thread else { throw usage }
            root = thread
        }
        let thread = try await service.setFollowing(following, chat: chat.id, root: root)
        threadStances[ThreadKey(chat: chat.id, root: thread.root)] = thread.following
        let place = "\(found.mainFlow.label)/\(thread.root)"
        let said = following == .following ? "Following \(place)" : "No longer following \(place) (a mention does not bring it back)"
        output.result(command, [said], json: thread)
    }

    /// `thread 12 "deploy friday" of #ops: 3 replies, 1 unread, last 14:05, following`.
    static func describe(_ thread: ChatThread, at place: String) -> String {
        var parts = ["\(thread.replies) repl\(thread.replies == 1 ? "y" : "ies")"]
        if thread.unread > 0 { parts.append("\(thread.unread) unread") }
        if thread.mentions > 0 { parts.append("\(thread.mentions) mention\(thread.mentions == 1 ? "" : "s")") }
        if let last = thread.lastActivity { parts.append("last \(Format.time(last))") }
        switch thread.following {
        case .following: parts.append("following")
        case .muted: parts.append("muted")
        case .none: break
        }
        let title = thread.title.map { " \"\(Sanitizer.line($0))\"" } ?? ""
        return "\(place)\(title): " + parts.joined(separator: ", ")
    }

    /// A thread as `/thread` and `/history` show it: its root, then its last `count`
    /// messages, numbered.
    func threadLines(_ thread: ChatThread, in chat: Chat, count: Int) async throws -> [String] {
        let colour = output.style == .colour
        var lines: [String] = []
        if let root = thread.rootMessage {
            var shown = root
            shown.threadHead = nil
            lines.append(Format.numbered(root.seq, Format.message(shown, in: chat, me: me?.id, colour: colour)))
        }
        let replies = try await history(of: chat.id, count: count, before: nil, flow: .thread(thread.root))
        lines += replies.map { Format.numbered($0.seq, Format.message($0, in: chat, me: me?.id, colour: colour)) }
        return lines
    }

    /// A message of a history page, and under a thread's root the thread's summary.
    func historyLines(_ message: Message, in chat: Chat) -> [String] {
        let line = Format.numbered(message.seq, Format.message(message, in: chat, me: me?.id, colour: output.style == .colour))
        guard let head = message.threadHead else { return [line] }
        let indent = String(repeating: " ", count: "\(message.seq). ".count)
        return [line, indent + Format.threadSummary(head, root: message.seq)]
    }
}

/// A thread, named by its chat and root.
struct ThreadKey: Hashable, Sendable {
    var chat: ChatID
    var root: Int64
}

extension Shell {
    /// Whether someone else's message shows live: any of a chat's main flow; of a thread,
    /// when it is the one shown or the user follows it (a mention follows it, unless the
    /// user muted it). What the user does not follow waits in `/threads`.
    func reachesLive(_ data: MessageEvent) async -> Bool {
        guard let root = data.message.thread, !data.message.alsoToChat else { return true }
        if isCurrent(data) { return true }
        let key = ThreadKey(chat: data.chat.id, root: root)
        var stance = threadStances[key]
        if stance == nil { stance = (try? await service.thread(chat: data.chat.id, root: root))?.following }
        if stance != .muted, let me, data.message.mentions(me.handle) { stance = .following }
        threadStances[key] = stance
        return stance == .following
    }
}
