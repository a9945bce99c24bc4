public import ParleyCore
import ParleyLive
import ParleyStore

/// Ignoring: a user's messages, mentions, invites and direct messages stop reaching
/// whoever ignores them, on every client of theirs (the server leaves them out).
extension EngineSession {
    public func ignore(_ target: UserID) async throws -> UserRef {
        let user = try requireUser()
        guard target != user.id else { throw ParleyError(.invalidArgument, "you cannot ignore yourself") }
        guard let found = try await store.user(id: target) else { throw ParleyError(.unknownUser, "no user with id \(target)") }
        _ = try await store.setIgnore(true, user: user.id, target: target, at: engine.now)
        engine.ignoreBook.changed(user: user.id, target: target)
        return found.ref
    }

    public func unignore(_ target: UserID) async throws {
        let user = try requireUser()
        guard try await store.setIgnore(false, user: user.id, target: target, at: engine.now) else {
            throw ParleyError(.invalidArgument, "you are not ignoring that user")
        }
        engine.ignoreBook.changed(user: user.id, target: target)
    }

    public func ignored() async throws -> [UserRef] {
        try await store.ignored(by: try requireUser().id)
    }

    /// Sets what of a chat gets the user's attention (nil: the default), for every client
    /// of theirs to follow; unread messages are counted whatever the level.
    public func setNotify(_ level: NotifyLevel?, in chat: ChatID) async throws {
        let user = try await requireMember(chat).user
        guard try await store.setNotify(level, user: user.id, chat: chat) else {
            throw ParleyError(.notMember, "you are not in that chat")
        }
        // The user's other clients follow (the shell's bell on each). The client that
        // made the change hears it too: two processes on one data folder share a token,
        // which is all a bus of several nodes can tell clients apart by.
        await engine.bus.publish(.notifyChanged(NotifyChange(chatID: chat, level: level)), to: [user.id], except: nil)
    }

    /// The chat list as if the ignored had never written: their unread messages and
    /// mentions are not counted, and a chat's last line is the last one from anyone else.
    func withoutIgnored(_ list: [ChatSummary], for user: UserID) async throws -> [ChatSummary] {
        let ignoring = await engine.ignoreBook.ignoring(by: user, store: store)
        guard !ignoring.isEmpty else { return list }
        let hidden = try await store.unreadFromIgnored(by: user)
        var list = list
        for index in list.indices {
            if let counts = hidden[list[index].chat.id] {
                list[index].unread = max(0, list[index].unread - counts.messages)
                list[index].mentions = max(0, list[index].mentions - counts.mentions)
            }
            if let last = list[index].lastMessage, ignoring.contains(last.sender.id) {
                // The last line from someone else, among the chat's latest (older ones
                // are not looked for: the list shows no last line then).
                let recent = try await store.history(
                    chat: last.chatID, after: max(0, last.seq - Self.lastLineLookBack), before: nil, limit: Int(Self.lastLineLookBack))
                list[index].lastMessage = recent.last { !ignoring.contains($0.sender.id) }
            }
        }
        // A direct chat only an ignored user has written in is not listed: their first
        // message makes no chat for the one who ignores them.
        return list.filter { summary in
            guard summary.chat.kind == .direct, summary.lastMessage == nil, let peer = summary.chat.peer(of: user) else { return true }
            return !ignoring.contains(peer.id)
        }
    }

    static let lastLineLookBack: Int64 = 100

    /// `messages` without those whose sender the user ignores.
    func withoutIgnored(_ messages: [Message], for user: UserID) async -> [Message] {
        let ignoring = await engine.ignoreBook.ignoring(by: user, store: store)
        return ignoring.isEmpty ? messages : messages.filter { !ignoring.contains($0.sender.id) }
    }
}
