/// Changes to sent messages: edits, deletions, reactions.
public protocol EditsService: AnyObject, Sendable {
    /// Replaces the text of the user's own message (within the server's edit window).
    /// It keeps its number and shows as edited; members get `message_edited`.
    func editMessage(chat: ChatID, seq: Int64, text: String) async throws -> Message

    /// Deletes a message: the user's own (within the delete window), or anyone's in a
    /// group the user owns or administers. It stays as a tombstone without text or
    /// media, and its media is served no more; members get `message_deleted`.
    func deleteMessage(chat: ChatID, seq: Int64) async throws -> Message

    /// Adds the user's reaction to a message (once per emoji; at most
    /// `Limits.maxReactionsPerMessage` different emoji per message) and returns its counts.
    func react(chat: ChatID, seq: Int64, emoji: String) async throws -> [ReactionCount]

    /// Takes the user's reaction back and returns the counts.
    func unreact(chat: ChatID, seq: Int64, emoji: String) async throws -> [ReactionCount]
}
