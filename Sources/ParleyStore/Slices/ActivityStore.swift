public import Foundation
public import ParleyCore

/// When each user was last around, whether they show it, their away message and IRC playback setting.
public protocol ActivityStore: Sendable {
    /// Records that the user was around at `time`.
    func recordSeen(_ user: UserID, at time: Date) async throws
    func activity(of user: UserID) async throws -> StoredActivity?
    func setActivityHidden(_ hidden: Bool, of user: UserID) async throws

    /// The user's own bound on messages an IRC client is played back per chat (nil:
    /// the server's; 0: none).
    func ircPlayback(of user: UserID) async throws -> Int?
    func setIRCPlayback(_ limit: Int?, of user: UserID) async throws

    /// Sets (or with nil clears) the user's away message; returns whether it changed.
    func setAway(_ message: String?, of user: UserID) async throws -> Bool

    /// The away messages of those of `users` who are away.
    func away(of users: [UserID]) async throws -> [UserID: String]
}
