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
        if word.hasPrefix("#") {
            let chat = try await service.group(handle: String(word.dropFirst()))
            return ChatTarget(chat: chat, peer: nil, label: Format.label(chat, me: me.id))
        }
        guard word.hasPrefix("@") else {
            throw ParleyError(.usage, "'\(word)' is not a chat: name a #group or an @user")
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

    func sendText(to word: String?, _ text: String) async throws {
        let target = try await target(word)
        guard let recipient = target.recipient else { throw ParleyError(.noCurrentChat, "no chat to send to") }
        let message: Message
        do {
            message = try await service.sendMessage(to: recipient, text: text, clientID: nil)
        } catch let error as ParleyError where error.code == .pending {
            showPending(text, to: target, error)
            return
        }
        try await showSent(message, to: target, command: "send")
    }

    /// Prints a message just sent as the command's result, followed by `extra` lines.
    func showSent(_ message: Message, to target: ChatTarget, command: String, extra: [String] = []) async throws {
        show(message, in: try await settle(target, after: message), command: command, extra: extra)
    }

    /// Prints a sent message as the command's result; `target` is settled.
    func show(_ message: Message, in target: ChatTarget, command: String, extra: [String] = []) {
        guard let chat = target.chat else { return }
        output.result(
            command, [Format.message(message, in: chat, me: me?.id, colour: output.style == .colour)] + extra, json: message)
    }

    /// A send kept in the outbox: not an error, and shown once the server has it.
    func showPending(_ text: String, to target: ChatTarget, _ error: ParleyError) {
        output.result("send", ["[pending] \(target.label) \(Sanitizer.line(text))  (\(error.message))"], json: ["pending": text])
    }

    /// After a send: the target's chat, now that the first message created it.
    func settle(_ target: ChatTarget, after message: Message) async throws -> ChatTarget {
        var target = target
        if target.chat == nil {
            target.chat = try await service.chat(message.chatID)
            if current?.peer?.id == target.peer?.id && current?.chat == nil { current = target }
        }
        return target
    }

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
