import ParleyCore

/// Which other chats have news, as WeeChat's hotlist shows them: before the prompt, on a
/// terminal, `#go 2 @bob 1!` (a `!` when some of it mentions the user), mentions first;
/// redrawn as messages arrive without touching the line being typed, and a chat leaves
/// it once it is the current one. It follows the chat's notification level, as WeeChat's
/// does: a muted chat never enters it, a mentions-only chat only with a mention.
extension Shell {
    /// A chat's news: what the chat list said was unread when it was read (through
    /// `baseSeq`), and the messages seen since, by number. A message seen twice (a resume
    /// replays what the chat list counted already, or what came before a restart) counts once.
    struct HotChat: Sendable {
        var label: String
        var base = 0
        var baseMentions = 0
        var baseSeq: Int64 = 0
        var seen: Set<Int64> = []
        var mentioned: Set<Int64> = []

        var unread: Int { base + seen.count }
        var mentions: Int { baseMentions + mentioned.count }
    }

    /// The most chats the hotlist names; the rest are counted (`+3`).
    static let hotlistShown = 6

    /// A message from someone else in a chat that is not the current one.
    func noteHot(_ data: MessageEvent, level: NotifyLevel?) {
        guard settings.status != nil, !isCurrent(data) else { return }
        let mentioned = me.map { data.message.mentions($0.handle) } == true
        guard level != .nothing, level != .mentions || mentioned else { return }
        // A followed thread's news is its own entry: `#ops/12 2`.
        let root = data.message.alsoToChat ? nil : data.message.thread
        let key = ThreadKey(chat: data.chat.id, root: root ?? 0)
        var chat = hot[key] ?? HotChat(label: Format.label(data.chat, me: me?.id) + (root.map { "/\($0)" } ?? ""))
        let seq = data.message.seq
        guard seq > chat.baseSeq else { return }
        chat.seen.insert(seq)
        if mentioned { chat.mentioned.insert(seq) }
        hot[key] = chat
        showStatus()
    }

    /// The chats with unread messages when the shell starts or signs in.
    func fillHotlist(_ chats: [ChatSummary]) {
        guard settings.status != nil else { return }
        for summary in chats where summary.unread > 0 && !isCurrent(summary.chat) && summary.notify != .nothing {
            // A mentions-only chat counts its mentions alone.
            let unread = summary.notify == .mentions ? summary.mentions : summary.unread
            guard unread > 0 else { continue }
            let through = summary.lastMessage?.seq ?? 0
            let key = ThreadKey(chat: summary.chat.id, root: 0)
            var chat = hot[key] ?? HotChat(label: Format.label(summary.chat, me: me?.id))
            (chat.base, chat.baseMentions, chat.baseSeq) = (unread, summary.mentions, through)
            chat.seen = chat.seen.filter { $0 > through }
            chat.mentioned = chat.mentioned.filter { $0 > through }
            hot[key] = chat
        }
        showStatus()
    }

    /// The followed threads with unread messages when the shell starts or signs in.
    func fillHotlist(_ threads: [ChatThread], in chats: [ChatSummary]) {
        let places = Dictionary(chats.map { ($0.chat.id, $0) }, uniquingKeysWith: { first, _ in first })
        for thread in threads where thread.unread > 0 {
            guard let summary = places[thread.chatID], summary.notify != .nothing,
                current?.thread != thread.root || !isCurrent(summary.chat)
            else { continue }
            let key = ThreadKey(chat: thread.chatID, root: thread.root)
            var chat = hot[key] ?? HotChat(label: Format.label(summary.chat, me: me?.id) + "/\(thread.root)")
            (chat.base, chat.baseSeq) = (thread.unread, thread.lastSeq ?? 0)
            chat.seen = chat.seen.filter { $0 > chat.baseSeq }
            hot[key] = chat
        }
        showStatus()
    }

    /// The current chat is read as it is shown: it leaves the hotlist.
    func coolDown(_ target: ChatTarget) {
        if let chat = target.chat?.id { hot[ThreadKey(chat: chat, root: target.thread ?? 0)] = nil }
        hot = hot.filter { $0.value.label != target.label }
        showStatus()
    }

    var hotlist: String? {
        guard !hot.isEmpty else { return nil }
        let sorted = hot.values.sorted { ($0.mentions > 0 ? 0 : 1, $0.label) < ($1.mentions > 0 ? 0 : 1, $1.label) }
        var shown = sorted.prefix(Self.hotlistShown).map { "\($0.label) \($0.unread)\($0.mentions > 0 ? "!" : "")" }
        if sorted.count > Self.hotlistShown { shown.append("+\(sorted.count - Self.hotlistShown)") }
        return shown.joined(separator: " ")
    }
}
