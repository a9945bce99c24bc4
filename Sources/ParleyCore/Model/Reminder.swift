public import Foundation

/// A reminder a user set (`/remind 10m stand-up`): kept by the server, and told to the
/// user alone when it comes due, or, if none of their clients is connected then, as soon
/// as one connects.
public struct Reminder: Hashable, Codable, Sendable {
    public var id: Int64
    public var text: String
    public var dueAt: Date
    public var createdAt: Date
    /// The chat it was set in, if any, and how it was named then (`#team`, `@bob`).
    public var chatID: ChatID?
    public var place: String?
    /// When it came due and was told (nil while pending).
    public var firedAt: Date?

    /// Pending reminders a user may keep.
    public static let maxPending = 100
    /// How far ahead one may be set.
    public static let maxAhead: TimeInterval = 366 * 86400
    public static let maxTextLength = 500

    public init(id: Int64, text: String, dueAt: Date, createdAt: Date, chatID: ChatID? = nil, place: String? = nil, firedAt: Date? = nil) {
        self.id = id
        self.text = text
        self.dueAt = dueAt
        self.createdAt = createdAt
        self.chatID = chatID
        self.place = place
        self.firedAt = firedAt
    }
}
