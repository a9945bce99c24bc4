public import Foundation

/// What `/whois` shows about a user: when they joined and were last around.
///
/// `lastSignIn` and `lastSeen` are nil when the user hides them, and for everyone a
/// user sees who hides their own.
public struct UserActivity: Hashable, Codable, Sendable {
    public var user: User
    public var lastSignIn: Date?
    /// The last minute they did anything (nil: hidden, or never).
    public var lastSeen: Date?
    public var online: Bool
    public var away: String?
    /// The user hides when they were last around.
    public var hidden: Bool

    public init(user: User, lastSignIn: Date?, lastSeen: Date?, online: Bool, away: String?, hidden: Bool) {
        self.user = user
        self.lastSignIn = lastSignIn
        self.lastSeen = lastSeen
        self.online = online
        self.away = away
        self.hidden = hidden
    }
}

/// One open session of the signed-in user, for `/sessions`.
public struct SessionInfo: Hashable, Codable, Sendable {
    /// A short public name for the session (never its token).
    public var id: String
    /// The program that signed in, as it named itself.
    public var client: String
    public var address: String
    public var startedAt: Date
    /// To the minute.
    public var lastActiveAt: Date
    /// The session asking.
    public var current: Bool

    public init(id: String, client: String, address: String, startedAt: Date, lastActiveAt: Date, current: Bool) {
        self.id = id
        self.client = client
        self.address = address
        self.startedAt = startedAt
        self.lastActiveAt = lastActiveAt
        self.current = current
    }
}
