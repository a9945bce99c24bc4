import ParleyCore

/// `/mute`, `/unmute`, `/notify`: what of a chat rings the bell (or runs
/// `$PARLEY_NOTIFY`), kept by the server for every client of the user.
extension Shell {
    func mute(_ input: inout CommandInput) async throws {
        try await setNotify(.nothing, &input, done: "Muted")
    }

    func unmute(_ input: inout CommandInput) async throws {
        try await setNotify(nil, &input, done: "Unmuted")
    }

    func notify(_ input: inout CommandInput) async throws {
        let usage = "/notify [#G|@H] all|mentions|none|default"
        let word = try input.target()
        guard let text = try input.word() else { throw ParleyError(.usage, usage) }
        let level: NotifyLevel?
        if text == "default" {
            level = nil
        } else if let chosen = NotifyLevel(rawValue: text) {
            level = chosen
        } else {
            throw ParleyError(.usage, usage)
        }
        try noMoreArguments(input)
        let (chat, _) = try await existingChat(word)
        try await service.setNotify(level, in: chat.id)
        await noteNotify(level, for: chat.id)
        let what: String
        switch level {
        case .all?: what = "every message there rings"
        case .mentions?: what = "only mentions of you ring"
        case .nothing?: what = "nothing there rings"
        case nil: what = "mentions and direct messages ring (the default)"
        }
        output.result("notify", ["\(Format.label(chat, me: me?.id)): \(what); unread messages are still counted"], json: ["level": text])
    }

    private func setNotify(_ level: NotifyLevel?, _ input: inout CommandInput, done: String) async throws {
        let word = try input.target()
        try noMoreArguments(input)
        let (chat, _) = try await existingChat(word)
        try await service.setNotify(level, in: chat.id)
        await noteNotify(level, for: chat.id)
        output.result(
            "notify", ["\(done) \(Format.label(chat, me: me?.id))\(level == .nothing ? " (unread messages are still counted)" : "")"],
            json: ["level": level?.rawValue ?? "default"])
    }

    /// A chat's level as the shell knows it, read from the chat list the first time.
    func notifyLevel(of chat: ChatID) async -> NotifyLevel? {
        if notifyLevels == nil, let summaries = try? await service.chats() {
            var levels: [ChatID: NotifyLevel] = [:]
            for summary in summaries { if let level = summary.notify { levels[summary.chat.id] = level } }
            notifyLevels = levels
        }
        return notifyLevels?[chat]
    }

    func noteNotify(_ level: NotifyLevel?, for chat: ChatID) async {
        _ = await notifyLevel(of: chat)
        notifyLevels?[chat] = level
    }
}
