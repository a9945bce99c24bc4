public import Foundation
public import ParleyCore

/// Changes to sent messages: edits, deletions, reactions.
public protocol EditsStore: Sendable {
    /// Replaces a message's text and marks it edited at `time`; its mentions stay as
    /// sent. Returns the message as it now reads (nil: no such message).
    func editMessage(chat: ChatID, seq: Int64, text: String, at time: Date) async throws -> Message?

    /// Makes a message a tombstone at `time`: its text, media, mentions and reactions
    /// go, search and the chat list no longer show them, and media that no other
    /// message and no avatar uses is no longer its uploader's. Returns the tombstone.
    func deleteMessage(chat: ChatID, seq: Int64, at time: Date) async throws -> Message?

    /// Adds or takes back `user`'s `emoji` on a message, atomically. Adding a new emoji
    /// to a message that already has `cap` different ones changes nothing and returns
    /// nil. Otherwise returns whether anything changed and the message's counts.
    func react(chat: ChatID, seq: Int64, user: UserID, emoji: String, add: Bool, cap: Int, at time: Date) async throws
        -> (changed: Bool, reactions: [ReactionCount])?
}
