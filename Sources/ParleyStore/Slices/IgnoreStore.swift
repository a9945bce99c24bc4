public import Foundation
public import ParleyCore

/// Whom users ignore, and each member's notification level.
public protocol IgnoreStore: Sendable {
    /// Sets a member's notification level for a chat (nil: the default); false when
    /// they are not a member.
    func setNotify(_ level: NotifyLevel?, user: UserID, chat: ChatID) async throws -> Bool

    /// Starts (`on`) or stops ignoring `target`; false when nothing changed.
    func setIgnore(_ on: Bool, user: UserID, target: UserID, at time: Date) async throws -> Bool

    /// Whom a user ignores, by handle.
    func ignored(by user: UserID) async throws -> [UserRef]

    /// Who ignores `sender`.
    func ignorers(of sender: UserID) async throws -> [UserID]

    /// Per chat of the user's, the messages past their read marker sent by someone they
    /// ignore, and how many of those mention them (by handle or everyone): the chat
    /// list leaves them out of its counts.
    func unreadFromIgnored(by user: UserID) async throws -> [ChatID: UnreadCount]
}
