import ParleyCore

/// Typing indicators on a terminal: who is typing in the current chat shows before the
/// prompt for a few seconds, and typing a message tells the chat (at most every few
/// seconds). Scripts neither send nor show them.
extension Shell {
    /// How long someone shows as typing after their last typing event.
    static let typingShown: Duration = .seconds(6)
    /// How often this user tells a chat they are typing.
    static let typingInterval: Duration = .seconds(3)

    /// Called by the line editor while the user types a message.
    public nonisolated func userIsTyping() {
        Task { await announceTyping() }
    }

    private func announceTyping() async {
        guard settings.interactive, let chat = current?.chat?.id else { return }
        let now = ContinuousClock.now
        if let last = typingSent[chat], now - last < Self.typingInterval { return }
        typingSent[chat] = now
        try? await service.typing(in: chat)
    }

    func noteTyping(_ handle: String, in chat: ChatID) {
        guard settings.status != nil else { return }
        typists[chat, default: [:]][handle] = .now
        showStatus()
        Task {
            try? await Task.sleep(for: Self.typingShown)
            self.showStatus()
        }
    }

    /// A message from someone ends their typing.
    func noteTyping(stoppedBy handle: String, in chat: ChatID) {
        guard typists[chat]?.removeValue(forKey: handle) != nil else { return }
        showStatus()
    }

    /// Updates the status before the prompt: who is typing in the current chat, and the
    /// other chats with news (`hotlist`).
    public func showStatus() {
        guard let status = settings.status else { return }
        let now = ContinuousClock.now
        for (chat, names) in typists {
            let fresh = names.filter { now - $0.value < Self.typingShown }
            typists[chat] = fresh.isEmpty ? nil : fresh
        }
        var parts: [String] = []
        if let chat = current?.chat?.id, let names = typists[chat], !names.isEmpty {
            parts.append(names.keys.sorted().prefix(3).map { "@" + Sanitizer.line($0) }.joined(separator: ", ") + " typing…")
        }
        if let hotlist { parts.append(hotlist) }
        status(parts.isEmpty ? nil : parts.joined(separator: " | "))
    }
}
