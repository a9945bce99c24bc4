import ParleyCore

/// Which other chats have news, as WeeChat's hotlist shows them: before the prompt, on a
/// terminal, `#go 2 @bob 1!` (a `!` when some of it mentions the user), mentions first;
/// redrawn as messages arrive without touching the line being typed, and a chat leaves
/// it once it is the current one. It follows the chat's notification level, as WeeChat's
/// does: a muted chat never enters it, a mentions-only chat only with a mention.
extension Shell {
    struct HotChat: Sendable {
        var label: String
        var unread: Int
        var mentions: Int
    }

    /// The most chats the hotlist names; the rest are counted (`+3`).
    static let hotlistShown = 6

    /// A message from someone else in a chat that is not the current one.
    func noteHot(_ data: MessageEvent, level: NotifyLevel?) {
        guard settings.status != nil, !isCurrent(data.chat) else { return }
        let mentioned = me.map { data.message.mentions($0.handle) } == true
        guard level != .nothing, level != .mentions || mentioned else { return }
        hot[data.chat.id, default: HotChat(label: Format.label(data.chat, me: me?.id), unread: 0, mentions: 0)].unread += 1
        if mentioned { hot[data.chat.id]?.mentions += 1 }
        showStatus()
    }

    /// The chats with unread messages when the shell starts or signs in.
    func fillHotlist(_ chats: [ChatSummary]) {
        guard settings.status != nil else { return }
        for summary in chats where summary.unread > 0 && !isCurrent(summary.chat) && summary.notify != .nothing {
            // A mentions-only chat counts its mentions alone.
            let unread = summary.notify == .mentions ? summary.mentions : summary.unread
            guard unread > 0 else { continue }
            hot[summary.chat.id] = HotChat(label: Format.label(summary.chat, me: me?.id), unread: unread, mentions: summary.mentions)
        }
        showStatus()
    }

    /// The current chat is read as it is shown: it leaves the hotlist.
    func coolDown(_ target: ChatTarget) {
        if let chat = target.chat?.id { hot[chat] = nil }
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
