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
        // The user's other clients follow (the shell's bell on each).
        await engine.bus.publish(.notifyChanged(NotifyChange(chatID: chat, level: level)), to: [user.id], except: origin)
    }

    /// `messages` without those whose sender the user ignores.
    func withoutIgnored(_ messages: [Message], for user: UserID) async -> [Message] {
        let ignoring = await engine.ignoreBook.ignoring(by: user, store: store)
        return ignoring.isEmpty ? messages : messages.filter { !ignoring.contains($0.sender.id) }
    }
}
