import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// Edits, deletions, reactions, mentions, typing and group topics.
extension EngineSession {
    public func editMessage(chat: ChatID, seq: Int64, text: String) async throws -> Message {
        let (entry, _, user) = try await requireMember(chat)
        let original = try await requireLiveMessage(chat, seq)
        guard original.sender.id == user.id else { throw ParleyError(.forbidden, "you can only edit your own messages") }
        guard original.kind != .system else { throw ParleyError(.forbidden, "a system message cannot be edited") }
        if let window = engine.configuration.editWindow, engine.now.timeIntervalSince(original.sentAt) > window.seconds {
            throw ParleyError(.tooLate, "a message can be edited for \(Self.describe(window)) after it was sent")
        }
        let text = original.kind == .text ? try Limits.messageText(text) : try Limits.caption(text)
        guard let edited = try await store.editMessage(chat: chat, seq: seq, text: text, at: engine.now) else {
            throw ParleyError(.unknownMessage, "no message \(seq) in this chat")
        }
        try await publish(.messageEdited(MessageEvent(chat: entry.chat, message: edited)), toMembersOf: chat)
        return edited
    }

    public func deleteMessage(chat: ChatID, seq: Int64) async throws -> Message {
        try await deleteMessage(chat: chat, seq: seq, reason: nil)
    }

    /// Deletes a message, saying why to the chat's members (IRC's REDACT reason; one
    /// that is not a valid reason is dropped).
    public func deleteMessage(chat: ChatID, seq: Int64, reason: String?) async throws -> Message {
        let (entry, role, user) = try await requireMember(chat)
        let original = try await requireLiveMessage(chat, seq)
        if original.sender.id == user.id {
            if let window = engine.configuration.deleteWindow, engine.now.timeIntervalSince(original.sentAt) > window.seconds {
                throw ParleyError(.tooLate, "a message can be deleted for \(Self.describe(window)) after it was sent")
            }
        } else {
            // The owner deletes anyone's message in a group; an admin, those of members.
            let senderRole = entry.roles[original.sender.id] ?? .member
            guard entry.chat.kind == .group, role == .owner || (role.canManage && senderRole < role) else {
                throw ParleyError(
                    .forbidden,
                    entry.chat.kind == .group
                        ? "only the owner, or an admin for members' messages, can delete others' messages"
                        : "you can only delete your own messages")
            }
        }
        guard let tombstone = try await store.deleteMessage(chat: chat, seq: seq, at: engine.now) else {
            throw ParleyError(.unknownMessage, "no message \(seq) in this chat")
        }
        let by = original.sender.id == user.id ? nil : user.ref
        let event = MessageEvent(chat: entry.chat, message: tombstone, by: by, reason: try? Limits.reason(reason))
        try await publish(.messageDeleted(event), toMembersOf: chat)
        if by != nil {
            try await engine.audit(
                .deleteMessage, by: user, target: "message \(seq) by @\(original.sender.handle)", in: entry.chat, reason: event.reason)
        }
        return tombstone
    }

    public func react(chat: ChatID, seq: Int64, emoji: String) async throws -> [ReactionCount] {
        try await changeReaction(chat: chat, seq: seq, emoji: emoji, add: true)
    }

    public func unreact(chat: ChatID, seq: Int64, emoji: String) async throws -> [ReactionCount] {
        try await changeReaction(chat: chat, seq: seq, emoji: emoji, add: false)
    }

    private func changeReaction(chat: ChatID, seq: Int64, emoji: String, add: Bool) async throws -> [ReactionCount] {
        let (entry, _, user) = try await requireMember(chat)
        let emoji = try Limits.emoji(emoji)
        let target = try await requireLiveMessage(chat, seq)
        guard
            let (changed, counts) = try await store.react(
                chat: chat, seq: seq, user: user.id, emoji: emoji, add: add, cap: Limits.maxReactionsPerMessage, at: engine.now)
        else {
            throw ParleyError(.tooManyReactions, "a message takes at most \(Limits.maxReactionsPerMessage) different reactions")
        }
        if changed {
            let quote = ReplyQuote(seq: seq, sender: target.sender, text: target.text, deleted: false)
            let change = ReactionChange(chat: entry.chat, seq: seq, user: user.ref, emoji: emoji, added: add, reactions: counts, to: quote)
            try await publish(.reactionChanged(change), toMembersOf: chat)
        }
        return counts
    }

    public func mentions(limit: Int) async throws -> [Message] {
        let user = try requireUser()
        return await withoutIgnored(try await store.mentions(of: user.id, limit: try Limits.pageSize(limit)), for: user.id)
    }

    public func typing(in chat: ChatID) async throws {
        let (entry, _, user) = try await requireMember(chat, confirmed: false)
        guard
            engine.activity.mayAnnounceTyping(
                user.id, in: chat, at: engine.now, interval: engine.configuration.typingInterval.seconds)
        else { return }
        // Nor is someone who ignores the typist told.
        let ignorers = await engine.ignoreBook.ignorers(of: user.id, store: store)
        let others = entry.roles.keys.filter { $0 != user.id && !ignorers.contains($0) }
        guard !others.isEmpty else { return }
        await engine.bus.publish(.typing(Typing(chatID: chat, user: user.ref)), to: others, except: origin)
    }

    public func setTopic(_ topic: String?, in chat: ChatID) async throws -> Chat {
        let (entry, role, user) = try await requireGroupMember(chat)
        guard role.canManage || entry.chat.anyoneSetsTopic else {
            throw ParleyError(.forbidden, "only the owner and admins of \(Self.name(of: entry.chat)) can set its topic")
        }
        let topic = try topic.flatMap { try Limits.topic($0) }
        return try await updated(chat, by: user, what: .topic) {
            try await store.setTopic(topic, of: chat, by: user.handle, at: engine.now)
        }
    }

    public func setGroupRules(in chat: ChatID, _ change: GroupRulesChange) async throws -> Chat {
        let (entry, _, user) = try await requireManager(chat)
        var change = change
        if let limit = change.memberLimit, !(0...Limits.maxMemberLimit).contains(limit) {
            throw ParleyError(.invalidArgument, "a member limit is 1 to \(Limits.maxMemberLimit), or 0 for none")
        }
        change.key = try change.key.map { key throws(ParleyError) in try Limits.groupKey(key) }
        if let days = change.retentionDays {
            let most = engine.configuration.retentionDays ?? Limits.maxRetentionDays
            guard days == 0 || (1...most).contains(days) else {
                throw ParleyError(
                    .invalidArgument,
                    engine.configuration.retentionDays == nil
                        ? "a group keeps messages 1 to \(most) days, or 0 for as long as the server does"
                        : "this server keeps messages \(most) days: a group keeps them 1 to \(most) days, or 0 for as long as the server does"
                )
            }
        }
        let changed = try await updated(chat, by: user, what: .rules, before: entry.chat) {
            try await store.setGroupRules(of: chat, change)
        }
        let words = Self.rulesChanged(from: entry.chat, to: changed)
        try await engine.audit(.setRules, by: user, target: Self.name(of: changed), in: changed, detail: words.isEmpty ? nil : words)
        var answer = changed
        answer.serverRetentionDays = engine.configuration.retentionDays
        return answer
    }

    public func ban(handle: String, from chat: ChatID) async throws {
        let (entry, role, user) = try await requireManager(chat)
        let handle = try Limits.userHandle(handle)
        guard handle.lowercased() != user.handle.lowercased() else { throw ParleyError(.invalidArgument, "you cannot ban yourself") }
        let target = try await store.user(handle: handle)
        if let target, let targetRole = entry.roles[target.id], targetRole >= role {
            throw ParleyError(.forbidden, "you cannot ban a member whose role is \(targetRole.rawValue)")
        }
        _ = try await store.setBan(handle.lowercased(), in: chat, banned: true, at: engine.now)
        if let target, entry.roles[target.id] != nil { try await kick(user: target.id, from: chat, reason: "banned") }
        _ = try await updated(chat, by: user, what: .bans) { try await store.chat(id: chat) }
        try await engine.audit(.ban, by: user, target: "@\(handle.lowercased())", in: entry.chat)
    }

    public func unban(handle: String, from chat: ChatID) async throws {
        let user = try await requireManager(chat).user
        guard try await store.setBan(try Limits.userHandle(handle).lowercased(), in: chat, banned: false, at: engine.now) else {
            throw ParleyError(.invalidArgument, "@\(handle) is not banned")
        }
        let changed = try await updated(chat, by: user, what: .bans) { try await store.chat(id: chat) }
        try await engine.audit(.unban, by: user, target: "@\(handle.lowercased())", in: changed)
    }

    public func bans(in chat: ChatID) async throws -> [String] {
        _ = try await requireGroupMember(chat)
        return try await store.bans(of: chat)
    }

    /// Applies a change to a group, forgets the cached copy and tells the members.
    private func updated(
        _ chat: ChatID, by user: User, what: ChatChange, before: Chat? = nil, change: () async throws -> Chat?
    ) async throws -> Chat {
        guard let changed = try await change() else { throw ParleyError(.unknownChat, "no chat with id \(chat)") }
        engine.directory.invalidate(chat)
        try await publish(.chatUpdated(ChatUpdated(chat: changed, by: user.ref, what: what, before: before)), toMembersOf: chat)
        return changed
    }

    /// The message, or `unknown_message` / `message_deleted`.
    private func requireLiveMessage(_ chat: ChatID, _ seq: Int64) async throws -> Message {
        guard seq >= 1, let message = try await store.message(chat: chat, seq: seq) else {
            throw ParleyError(.unknownMessage, "no message \(seq) in this chat")
        }
        guard !message.isDeleted else { throw ParleyError(.messageDeleted, "message \(seq) was deleted") }
        return message
    }

    /// `24 hours`, `15 minutes`, `30 seconds`.
    static func describe(_ duration: Duration) -> String {
        let seconds = Int64(duration.seconds)
        if seconds >= 3600, seconds % 3600 == 0 { return "\(seconds / 3600) hour\(seconds == 3600 ? "" : "s")" }
        if seconds >= 60, seconds % 60 == 0 { return "\(seconds / 60) minute\(seconds == 60 ? "" : "s")" }
        return "\(seconds) second\(seconds == 1 ? "" : "s")"
    }
}
