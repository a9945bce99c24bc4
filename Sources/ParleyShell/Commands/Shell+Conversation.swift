import Foundation
import ParleyCore

/// Replies, edits, deletions, reactions, mentions and group topics.
extension Shell {
    /// `[#G|@H] SEQ`: the chat (the current one by default) and a message number.
    private func messageRef(_ input: inout CommandInput, usage: String) async throws -> (Chat, ChatTarget, Int64) {
        let word = try input.target()
        guard let text = try input.word(), let seq = Int64(text), seq >= 1 else { throw ParleyError(.usage, "\(usage)") }
        let (chat, target) = try await existingChat(word)
        return (chat, target, seq)
    }

    func reply(_ input: inout CommandInput) async throws {
        let usage = "/reply [#G|@H] SEQ TEXT"
        let (chat, target, seq) = try await messageRef(&input, usage: usage)
        let text = try input.text()
        guard !text.isEmpty else { throw ParleyError(.usage, "\(usage)") }
        let message: Message
        do {
            message = try await service.reply(to: seq, in: chat.id, text: text, clientID: nil, via: settings.via)
        } catch let error as ParleyError where error.code == .pending {
            return showPending(text, to: target, error)
        }
        show(message, in: target, command: "reply")
    }

    func edit(_ input: inout CommandInput) async throws {
        let usage = "/edit [#G|@H] SEQ NEW TEXT"
        let (chat, target, seq) = try await messageRef(&input, usage: usage)
        let text = try input.text()
        guard !text.isEmpty else { throw ParleyError(.usage, "\(usage)") }
        let message = try await service.editMessage(chat: chat.id, seq: seq, text: text)
        show(message, in: target, command: "edit")
    }

    func deleteMessage(_ input: inout CommandInput) async throws {
        let (chat, target, seq) = try await messageRef(&input, usage: "/delete [#G|@H] SEQ")
        try noMoreArguments(input)
        let message = try await service.deleteMessage(chat: chat.id, seq: seq)
        settings.logs?.record(.messageDeleted(MessageEvent(chat: chat, message: message)), me: me?.id)
        output.result("delete", ["Deleted message \(seq) in \(target.label)"], json: message)
    }

    func react(_ input: inout CommandInput, add: Bool) async throws {
        let usage = add ? "/react [#G|@H] SEQ EMOJI" : "/unreact [#G|@H] SEQ EMOJI"
        let (chat, target, seq) = try await messageRef(&input, usage: usage)
        guard let emoji = try input.word() else { throw ParleyError(.usage, "\(usage)") }
        try noMoreArguments(input)
        let counts =
            add
            ? try await service.react(chat: chat.id, seq: seq, emoji: emoji)
            : try await service.unreact(chat: chat.id, seq: seq, emoji: emoji)
        let shown = counts.isEmpty ? "no reactions" : Format.reactions(counts)
        output.result(add ? "react" : "unreact", ["Message \(seq) in \(target.label): \(shown)"], json: counts)
    }

    func mentions(_ input: inout CommandInput) async throws {
        let word = try input.word()
        try noMoreArguments(input)
        guard let count = word.map({ Int($0) }) ?? 20 else { throw ParleyError(.usage, "/mentions [N]") }
        let found = try await service.mentions(limit: count)
        let lines = try await numberedLines(found)
        output.result("mentions", lines.isEmpty ? ["Nobody has mentioned you"] : lines, json: found)
    }

    func topic(_ input: inout CommandInput) async throws {
        let word = try input.target()
        let options = try input.options(flags: ["clear"])
        let chat = try await groupTarget(word)
        let place = Format.label(chat, me: me?.id)
        if !options.flags.contains("clear"), options.positional.isEmpty {
            let fresh = try await service.chat(chat.id)
            let line = fresh.topic.map { "Topic of \(place): \(Sanitizer.line($0))" } ?? "\(place) has no topic"
            return output.result("topic", [line], json: fresh)
        }
        let text = options.flags.contains("clear") ? nil : options.positional.joined(separator: " ")
        let changed = try await service.setTopic(text, in: chat.id)
        let line = changed.topic.map { "Topic of \(place): \(Sanitizer.line($0))" } ?? "Cleared the topic of \(place)"
        output.result("topic", [line], json: changed)
    }

    func rules(_ input: inout CommandInput) async throws {
        let usage =
            "/rules [#G] [topic=anyone|admins] [mentions=anyone|admins] [posting=anyone|voiced] "
            + "[visibility=public|private] [listed=yes|no] [limit=N|none] [key=KEY|none] [keep=DAYS|server]"
        let word = try input.target()
        var change = GroupRulesChange()
        while let setting = try input.word() {
            let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ParleyError(.usage, "\(usage)") }
            let (name, value) = (parts[0].lowercased(), parts[1])
            func choice(_ yes: String, _ no: String) throws(ParleyError) -> Bool {
                guard [yes, no].contains(value.lowercased()) else { throw ParleyError(.usage, "\(usage)") }
                return value.lowercased() == yes
            }
            switch name {
            case "topic": change.anyoneSetsTopic = try choice("anyone", "admins")
            case "mentions", "all": change.anyoneMentionsAll = try choice("anyone", "admins")
            case "posting": change.moderated = try choice("voiced", "anyone")
            case "visibility": change.isPublic = try choice("public", "private")
            case "listed": change.unlisted = try choice("no", "yes")
            case "limit":
                guard value.lowercased() == "none" || Int(value).map({ $0 > 0 }) == true else {
                    throw ParleyError(.usage, "\(usage)")
                }
                change.memberLimit = Int(value) ?? 0
            case "key": change.key = value.lowercased() == "none" ? "" : value
            case "keep":
                let days = value.lowercased().hasSuffix("d") ? String(value.dropLast()) : value
                guard value.lowercased() == "server" || Int(days).map({ $0 > 0 }) == true else { throw ParleyError(.usage, "\(usage)") }
                change.retentionDays = Int(days) ?? 0
            default: throw ParleyError(.usage, "\(usage)")
            }
        }
        let chat = try await groupTarget(word)
        let result = change.isEmpty ? try await service.chat(chat.id) : try await service.setGroupRules(in: chat.id, change)
        output.result("rules", ["Rules of \(Format.label(result, me: me?.id)): \(Format.rules(result))"], json: result)
    }
}
