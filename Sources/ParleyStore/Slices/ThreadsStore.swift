public import Foundation
public import ParleyCore

/// Threads: each one's title and counts (kept by the message writers as messages go in),
/// and each member's following and reading of it.
public protocol ThreadsStore: Sendable {
    /// Opens the thread of message `root` if it is not open, and sets its title when one
    /// is given ("" clears it). `item`: what a hook's deliveries to this thread are about
    /// (`threadRoot(chat:item:)` finds it again); an item already a thread's is not moved.
    func openThread(chat: ChatID, root: Int64, title: String?, item: String?, at time: Date) async throws

    /// The root of the chat's thread about `item` (a pull request a hook delivers about).
    func threadRoot(chat: ChatID, item: String) async throws -> Int64?

    /// A thread as `user` sees it (their unread count and following, its root not
    /// filled in); nil when it was never opened.
    func thread(chat: ChatID, root: Int64, user: UserID) async throws -> ChatThread?

    /// A chat's threads as `user` sees them, latest activity first.
    func threads(chat: ChatID, user: UserID, limit: Int) async throws -> [ChatThread]

    /// The threads `user` follows in chats they are a member of, those with unread
    /// messages first, then latest activity first.
    func followedThreads(user: UserID, limit: Int) async throws -> [ChatThread]

    /// Sets how `users` stand on an open thread; with `onlyIfUnset`, only for those who
    /// have not chosen (following by itself never overrides a mute).
    func setFollowing(_ following: ThreadFollowing, chat: ChatID, root: Int64, users: [UserID], onlyIfUnset: Bool) async throws

    /// Per chat of the user's that has threads, the messages past their read marker that
    /// went only to a thread, and how many of those mention them: the chat list's counts
    /// are its main flow's.
    func unreadInThreads(by user: UserID) async throws -> [ChatID: UnreadCount]

    /// Moves the user's read position in an open thread forward to `seq` (never back).
    func markThreadRead(chat: ChatID, root: Int64, user: UserID, seq: Int64) async throws
}
