import ParleyCore

/// A chat the shell points at: a group, or a user (whose direct chat may not exist yet),
/// or one thread of either (`#ops/12`: the thread of message 12 of #ops).
struct ChatTarget: Sendable {
    var chat: Chat?
    var peer: UserRef?
    var label: String
    /// The thread's root, when the target is a thread; lines sent to it go there.
    var thread: Int64?

    /// The same chat's main flow.
    var mainFlow: ChatTarget {
        guard thread != nil else { return self }
        var target = self
        target.thread = nil
        target.label = String(label.prefix { $0 != "/" })
        return target
    }

    /// The thread of message `root` of the same chat.
    func inThread(_ root: Int64) -> ChatTarget {
        var target = mainFlow
        target.thread = root
        target.label += "/\(root)"
        return target
    }

    var recipient: Recipient? {
        if let chat { return .chat(chat.id) }
        if let peer { return .user(peer.id) }
        return nil
    }
}

extension Shell {
    /// Resolves `#group`, `@user`, or the current chat when `word` is nil.
    func target(_ word: String?) async throws -> ChatTarget {
        let me = try requireMe()
        guard let word else {
            guard let current else {
                throw ParleyError(.noCurrentChat, "no current chat: /switch #group or /query @user first, or name one")
            }
            return current
        }
        guard word.hasPrefix("#") || word.hasPrefix("@") else {
            throw ParleyError(.usage, "'\(word)' is not a chat: name a #group or an @user")
        }
        // `#ops/12`, `@bob/7`: a thread of the chat.
        if let (chat, root) = ChatThread.address(word) { return try await target(String(chat)).inThread(root) }
        let key = "\(me.id) " + word.lowercased()
        do {
            let found = try await lookUp(word, me: me)
            knownTargets[key] = found
            return found
        } catch let error as ParleyError where error.code == .unavailable || error.code == .pending {
            // The server is out of reach: a chat already named in this run still takes
            // sends, which wait in the outbox.
            guard let known = knownTargets[key] else { throw error }
            return known
        }
    }

    private func lookUp(_ word: String, me: User) async throws -> ChatTarget {
        if word.hasPrefix("#") {
            let chat = try await service.group(handle: String(word.dropFirst()))
            return ChatTarget(chat: chat, peer: nil, label: Format.label(chat, me: me.id))
        }
        let user = try await service.user(handle: String(word.dropFirst()))
        let chat = try await service.directChat(with: user.id)
        return ChatTarget(chat: chat, peer: user.ref, label: "@" + Sanitizer.line(user.handle))
    }

    /// As `target`, but the chat must already exist.
    func existingChat(_ word: String?) async throws -> (Chat, ChatTarget) {
        let target = try await target(word)
        if let chat = target.chat { return (chat, target) }
        // The current target may be a user written to since it was chosen.
        if let peer = target.peer, let chat = try await service.directChat(with: peer.id) {
            var found = target
            found.chat = chat
            return (chat, found)
        }
        throw ParleyError(.unknownChat, "no messages with \(target.label) yet: /msg \(target.label) TEXT starts the chat")
    }

    /// A group by `#handle`, or the current chat if it is a group.
    func groupTarget(_ word: String?) async throws -> Chat {
        if let word, !word.hasPrefix("#") {
            throw ParleyError(.usage, "'\(word)' is not a group: groups are written #name")
        }
        let (chat, _) = try await existingChat(word)
        guard chat.kind == .group else { throw ParleyError(.notAGroup, "\(Format.label(chat, me: me?.id)) is not a group") }
        return chat
    }

    func user(_ word: String) async throws -> User {
        guard word.hasPrefix("@") else { throw ParleyError(.usage, "'\(word)' is not a user: users are written @name") }
        return try await service.user(handle: String(word.dropFirst()))
    }
}
