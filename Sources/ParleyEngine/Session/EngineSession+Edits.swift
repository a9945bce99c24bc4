import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// `EditsService`: edits, deletions and reactions, each within the group's rules and the
/// server's time window.
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
