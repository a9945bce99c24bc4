/// Away messages, when people were last around, who is online in a chat.
public protocol ActivityService: AnyObject, Sendable {
    /// Marks the user away (nil message: "away") until `back()` or
    /// their next message; contacts see it, and so does whoever sends them a direct
    /// message (once per away period).
    func setAway(_ message: String?) async throws

    /// Back from away.
    func back() async throws

    /// Hides (or shows again) when the user was last around; one who hides sees nobody's.
    func hideActivity(_ hidden: Bool) async throws

    /// How many messages of each chat the user's IRC clients that do not page history
    /// themselves are played back when they connect: nil for the server's bound, 0 for
    /// none. The server's bound still caps it.
    func ircPlayback() async throws -> Int?

    /// Sets that (nil: back to the server's bound).
    func setIRCPlayback(_ limit: Int?) async throws

    /// When a user joined, last signed in and was last seen, and whether they are
    /// online or away now.
    func activity(of user: UserID) async throws -> UserActivity

    /// Says which chat this session is looking at (nil: none).
    func setViewing(_ chat: ChatID?) async throws

    /// The group's members who are online, and whether each is viewing it.
    func online(in chat: ChatID) async throws -> [PresenceEntry]
}
