import ParleyCore

/// A chat the shell points at: a group, or a user (whose direct chat may not exist yet).
struct ChatTarget: Sendable {
    var chat: Chat?
    var peer: UserRef?
    var label: String

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
            return (chat, ChatTarget(chat: chat, peer: peer, label: target.label))
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
