import ParleyCore

extension Shell {
    /// Fills the completion cache with the handles of the user's chats.
    func refreshCompletions() async {
        guard me != nil, let list = try? await service.chats() else { return }
        var users: [String] = []
        var groups: [String] = []
        for summary in list {
            if let handle = summary.chat.handle { groups.append(handle) }
            users += summary.chat.participants.map(\.handle)
        }
        completions.add(users: users, groups: groups)
    }

    nonisolated func refreshCompletions(after event: ChatEvent) {
        switch event {
        case .message(let data):
            completions.add(users: [data.message.sender.handle], groups: data.chat.handle.map { [$0] } ?? [])
        case .memberJoined(let change), .memberLeft(let change):
            completions.add(users: [change.user.handle], groups: change.chat.handle.map { [$0] } ?? [])
        default:
            break
        }
    }
}
