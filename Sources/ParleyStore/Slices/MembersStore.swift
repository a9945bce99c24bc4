public import Foundation
public import ParleyCore

/// Chats and who is in them: direct chats, groups made, members and roles, each user's chat list.
public protocol MembersStore: Sendable {
    func chat(id: ChatID) async throws -> Chat?
    func group(handle: String) async throws -> Chat?
    func directChat(between first: UserID, and second: UserID) async throws -> Chat?

    /// Returns the pair's direct chat, creating it (with both as members) if needed.
    func openDirectChat(between first: UserID, and second: UserID, at time: Date) async throws -> (chat: Chat, created: Bool)

    /// Creates a group with `owner` as its owner; throws `handle_taken`.
    func createGroup(handle: String, title: String?, isPublic: Bool, owner: UserID, at time: Date) async throws -> Chat
    func membership(of user: UserID, in chat: ChatID) async throws -> Membership?
    func members(of chat: ChatID) async throws -> [Member]

    /// Adds a member; false when they already were one.
    func addMember(_ user: UserID, to chat: ChatID, role: Role, at time: Date) async throws -> Bool

    /// Removes a member, optionally making someone else owner in the same transaction.
    func removeMember(_ user: UserID, from chat: ChatID, newOwner: UserID?) async throws -> Bool
    func setRole(_ role: Role, of user: UserID, in chat: ChatID) async throws
    func groups(of user: UserID) async throws -> [Chat]
    func chatIDs(of user: UserID) async throws -> [ChatID]
    func chatList(for user: UserID) async throws -> [ChatSummary]

    /// Hides the chat from the user's list and clears their history up to now.
    func hideChat(_ chat: ChatID, for user: UserID, at time: Date) async throws
}
