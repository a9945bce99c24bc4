/// Threads: messages that hang off a root message of a chat, kept out of its main flow.
public protocol ThreadsService: AnyObject, Sendable {
    /// Sends a text into the thread of message `seq`, or into the thread `seq` is in; the
    /// first message opens it. With `alsoToChat`, the chat's main flow shows it too.
    /// Everything `sendMessage` checks applies (membership, moderation, bans, mentions).
    func sendToThread(chat: ChatID, seq: Int64, text: String, clientID: String?, via: String?, alsoToChat: Bool) async throws -> Message

    /// Opens the thread of message `seq` (or the one it is in) before anything is sent
    /// there, and names it when `title` is given ("" clears the name). Renaming a named
    /// thread takes its root's author or the group's owner or an admin.
    func openThread(chat: ChatID, seq: Int64, title: String?) async throws -> ChatThread

    /// A thread as the user sees it, its root filled in.
    func thread(chat: ChatID, root: Int64) async throws -> ChatThread

    /// A chat's threads, latest activity first, with the user's unread counts.
    func threads(in chat: ChatID, limit: Int) async throws -> [ChatThread]

    /// The threads the user follows, across their chats: those with unread first.
    func followedThreads(limit: Int) async throws -> [ChatThread]

    /// The latest `limit` messages of one flow of a chat (its main flow, one thread, or
    /// everything), or the `limit` before `before`, oldest first.
    func history(chat: ChatID, flow: HistoryFlow, limit: Int, before: Int64?) async throws -> [Message]

    /// Follows, mutes or leaves a thread to the default.
    func setFollowing(_ following: ThreadFollowing, chat: ChatID, root: Int64) async throws -> ChatThread

    /// Moves the user's read position in a thread forward to `seq`.
    func markThreadRead(chat: ChatID, root: Int64, upTo seq: Int64) async throws -> ChatThread
}
