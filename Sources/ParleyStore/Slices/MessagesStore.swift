public import Foundation
public import ParleyCore

/// Messages sent, read and searched: history, read markers, mentions.
public protocol MessagesStore: Sendable {
    /// Stores a message after checking the sender is a member; committed before it
    /// returns. A known (sender, client id) returns the stored message instead, with
    /// `created` false.
    func append(_ message: NewMessage) async throws -> (message: Message, created: Bool)

    /// Stores messages in order, as that many `append` calls would, in one commit.
    /// It stops at the first message a rule refuses and returns that refusal with the
    /// messages stored before it; a database error throws and stores none.
    func append(_ messages: [NewMessage]) async throws -> (stored: [(message: Message, created: Bool)], failure: ParleyError?)

    /// Up to `limit` messages of `flow` with `after < seq < before`, oldest first.
    func history(chat: ChatID, flow: HistoryFlow, after: Int64, before: Int64?, limit: Int) async throws -> [Message]
    func message(chat: ChatID, seq: Int64) async throws -> Message?

    /// Messages in chats `user` belongs to (in the part of their history they have not
    /// cleared, and not deleted) that contain every term of `query` and pass its
    /// filters, newest first.
    func search(_ query: SearchQuery, user: UserID, limit: Int) async throws -> [Message]

    /// Moves the marker forward to `min(seq, last seq)`; returns the marker as it now stands.
    func markRead(chat: ChatID, user: UserID, seq: Int64, at time: Date) async throws -> (marker: ReadMarker, moved: Bool)

    /// Moves the member's read position forward to `limit` as a time (never back), and
    /// their read marker to the last message sent by then.
    func markRead(chat: ChatID, user: UserID, upTo limit: Date, at time: Date) async throws -> (marker: ReadMarker, moved: Bool)

    /// The member's read marker, nil for one who is not a member.
    func readMarker(chat: ChatID, user: UserID) async throws -> ReadMarker?

    /// Read markers at or past `seq`.
    func readers(chat: ChatID, atLeast seq: Int64) async throws -> [ReadMarker]

    /// Messages that mention `user` by handle or mention everyone in a chat of theirs
    /// (in the part of their history they have not cleared), newest first.
    func mentions(of user: UserID, limit: Int) async throws -> [Message]
}

extension MessagesStore {
    /// Up to `limit` messages with `after < seq < before`, threads' too, oldest first.
    public func history(chat: ChatID, after: Int64, before: Int64?, limit: Int) async throws -> [Message] {
        try await history(chat: chat, flow: .all, after: after, before: before, limit: limit)
    }

    /// One message, as a batch of one.
    public func append(_ message: NewMessage) async throws -> (message: Message, created: Bool) {
        let outcome = try await append([message])
        if let failure = outcome.failure { throw failure }
        guard let stored = outcome.stored.first else { throw ParleyError(.internalError, "a message was neither stored nor refused") }
        return stored
    }
}
