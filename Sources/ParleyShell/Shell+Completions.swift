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
        fillHotlist(list)
        if settings.status != nil, let threads = try? await service.followedThreads(limit: 50) { fillHotlist(threads, in: list) }
    }

    /// Handles and public groups from the server's directory, for completion as they
    /// are typed: the searches `/users` and `/list` make, 20 at most.
    func directoryNames(_ sigil: Character, _ prefix: String) async -> [String] {
        guard me != nil else { return [] }
        if sigil == "@" { return (try? await service.searchUsers(prefix, limit: 20, offset: 0).map(\.handle)) ?? [] }
        return (try? await service.publicGroups(prefix, limit: 20, offset: 0).compactMap(\.chat.handle)) ?? []
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
