import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore

/// `ThreadsService`: sending into a thread is a send (`deliver`, every rule of the chat
/// applies); a thread is named by its chat and its root's `seq`, and a message in a
/// thread names the same thread as its root does.
extension EngineSession {
    public func sendToThread(chat: ChatID, seq: Int64, text: String, clientID: String?, via: String?, alsoToChat: Bool) async throws
        -> Message
    {
        let provenance = try Provenance.pluginName(via).map(Provenance.plugin)
        return try await send(
            to: .chat(chat), text: text, clientID: clientID, via: provenance, replyTo: nil, clientTags: nil, thread: seq,
            alsoToChat: alsoToChat)
    }

    public func openThread(chat: ChatID, seq: Int64, title: String?) async throws -> ChatThread {
        let (entry, role, user) = try await requireMember(chat)
        let title = try title.map(Limits.threadTitle)
        let (root, author) = try await threadRoot(of: seq, in: chat)
        let before = try await store.thread(chat: chat, root: root, user: user.id)
        if let title, let named = before?.title, named != title, author != user.id, entry.chat.kind == .group, !role.canManage {
            throw ParleyError(.forbidden, "only the author of message \(root) or an owner or admin may rename its thread")
        }
        try await store.openThread(chat: chat, root: root, title: title, item: nil, at: engine.now)
        let opened = try await thread(chat: chat, root: root)
        // Its members keep their copy: a thread opened, or a title that changed.
        if before == nil || before?.title != opened.title {
            let update = ThreadUpdate(chat: entry.chat, root: root, title: opened.title, by: user.ref)
            await engine.bus.publish(.threadUpdated(update), to: entry.members, except: origin)
        }
        return opened
    }

    public func thread(chat: ChatID, root: Int64) async throws -> ChatThread {
        let user = try await requireMember(chat).user
        var thread = try await requireThread(chat: chat, root: root, user: user.id)
        thread.rootMessage = try await visible(root, in: chat, for: user.id)
        return thread
    }

    /// The open thread of root `root` as the store has it (its root not filled in).
    private func requireThread(chat: ChatID, root: Int64, user: UserID) async throws -> ChatThread {
        guard let thread = try await store.thread(chat: chat, root: root, user: user) else {
            throw ParleyError(.unknownMessage, "message \(root) of this chat has no thread")
        }
        return thread
    }

    public func threads(in chat: ChatID, limit: Int) async throws -> [ChatThread] {
        let user = try await requireMember(chat).user
        return try await withRoots(try await store.threads(chat: chat, user: user.id, limit: try Limits.pageSize(limit)), for: user.id)
    }

    public func followedThreads(limit: Int) async throws -> [ChatThread] {
        let user = try requireUser()
        return try await withRoots(try await store.followedThreads(user: user.id, limit: try Limits.pageSize(limit)), for: user.id)
    }

    public func history(chat: ChatID, flow: HistoryFlow, limit: Int, before: Int64?) async throws -> [Message] {
        let user = try await requireMember(chat).user
        let limit = try Limits.pageSize(limit)
        let cleared = try await store.membership(of: user.id, in: chat)?.clearedSeq ?? 0
        return await withoutIgnored(
            try await store.history(chat: chat, flow: flow, after: cleared, before: before, limit: limit), for: user.id)
    }

    public func setFollowing(_ following: ThreadFollowing, chat: ChatID, root: Int64) async throws -> ChatThread {
        let user = try await requireMember(chat).user
        _ = try await requireThread(chat: chat, root: root, user: user.id)
        try await store.setFollowing(following, chat: chat, root: root, users: [user.id], onlyIfUnset: false)
        return try await thread(chat: chat, root: root)
    }

    public func markThreadRead(chat: ChatID, root: Int64, upTo seq: Int64) async throws -> ChatThread {
        let user = try await requireMember(chat).user
        let known = try await requireThread(chat: chat, root: root, user: user.id)
        guard seq >= 0 else { throw ParleyError(.invalidArgument, "a read position is 0 or more") }
        try await store.markThreadRead(chat: chat, root: root, user: user.id, seq: min(seq, known.lastSeq ?? 0))
        return try await thread(chat: chat, root: root)
    }

    /// The root of the thread message `seq` stands in (itself when it is in none) and the
    /// root's author.
    func threadRoot(of seq: Int64, in chat: ChatID) async throws -> (root: Int64, author: UserID) {
        guard seq >= 1, let message = try await store.message(chat: chat, seq: seq) else {
            throw ParleyError(.unknownMessage, "no message \(seq) in this chat to start a thread from")
        }
        guard let root = message.thread else { return (seq, message.sender.id) }
        guard let original = try await store.message(chat: chat, seq: root) else { return (root, message.sender.id) }
        return (root, original.sender.id)
    }

    /// Places a message to be sent: into the thread it names (by its root or any
    /// message in it), or, replying to a message that is in a thread, into that thread.
    /// Returns whom the thread follows by itself when it is sent: the root's author.
    func placeInThread(_ message: inout NewMessage) async throws -> UserID? {
        if message.thread == nil, let reply = message.replyTo,
            let answered = try await store.message(chat: message.chatID, seq: reply), let thread = answered.thread
        {
            message.thread = thread
        }
        guard let seq = message.thread else {
            message.alsoToChat = false
            return nil
        }
        let (root, author) = try await threadRoot(of: seq, in: message.chatID)
        message.thread = root
        if message.replyTo == root { message.replyTo = nil }
        return author
    }

    /// Message `seq` as the user may read it: nil when they cleared the chat past it or
    /// ignore its sender.
    private func visible(_ seq: Int64, in chat: ChatID, for user: UserID) async throws -> Message? {
        let cleared = try await store.membership(of: user, in: chat)?.clearedSeq ?? 0
        guard seq > cleared, let message = try await store.message(chat: chat, seq: seq) else { return nil }
        return await withoutIgnored([message], for: user).first
    }

    private func withRoots(_ threads: [ChatThread], for user: UserID) async throws -> [ChatThread] {
        var threads = threads
        for index in threads.indices {
            threads[index].rootMessage = try await visible(threads[index].root, in: threads[index].chatID, for: user)
        }
        return threads
    }
}
