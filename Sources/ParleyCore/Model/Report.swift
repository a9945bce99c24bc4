public import Foundation

/// A message a member reported to the server's operators (`/report`), as it read then,
/// and what became of the report (`/reports resolve`).
public struct Report: Hashable, Codable, Sendable {
    public var id: Int64
    public var chatID: ChatID
    /// The chat as named when reported: `#team`, or `direct`.
    public var place: String
    public var seq: Int64
    /// Who wrote the message, and its text when it was reported.
    public var sender: UserRef
    public var text: String
    public var reporter: UserRef
    public var reason: String?
    public var createdAt: Date
    public var resolvedAt: Date?
    /// The operator who resolved it, and their note.
    public var resolvedBy: String?
    public var note: String?

    /// Open reports one member may have at once.
    public static let maxOpenPerReporter = 50
    public static let maxReasonLength = 500

    public init(
        id: Int64, chatID: ChatID, place: String, seq: Int64, sender: UserRef, text: String, reporter: UserRef, reason: String?,
        createdAt: Date, resolvedAt: Date? = nil, resolvedBy: String? = nil, note: String? = nil
    ) {
        self.id = id
        self.chatID = chatID
        self.place = place
        self.seq = seq
        self.sender = sender
        self.text = text
        self.reporter = reporter
        self.reason = reason
        self.createdAt = createdAt
        self.resolvedAt = resolvedAt
        self.resolvedBy = resolvedBy
        self.note = note
    }
}
