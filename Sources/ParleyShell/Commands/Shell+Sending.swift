import ParleyCore

extension Shell {
    /// Sends `text` to `word`'s chat (the current one when nil) and shows it, or shows it
    /// as pending when the outbox keeps it for the connection's return.
    func sendText(to word: String?, _ text: String) async throws {
        let target = try await target(word)
        guard let recipient = target.recipient else { throw ParleyError(.noCurrentChat, "no chat to send to") }
        let message: Message
        do {
            if let thread = target.thread {
                guard let chat = target.chat else { throw ParleyError(.unknownChat, "no messages with \(target.mainFlow.label) yet") }
                message = try await service.sendToThread(
                    chat: chat.id, seq: thread, text: text, clientID: nil, via: settings.via, alsoToChat: false)
            } else {
                message = try await service.sendMessage(to: recipient, text: text, clientID: nil, via: settings.via)
            }
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
        // What this shell sends comes back to it as no event: the log takes it here.
        let event = MessageEvent(chat: chat, message: message)
        settings.logs?.record(command == "edit" ? .messageEdited(event) : .message(event), me: me?.id)
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
}
