import Foundation
public import ParleyCore
import ParleyProtocol

/// Threads, over the link: a thread's message is a send (through the outbox, as any).
extension RemoteChatService {
    public func sendToThread(chat: ChatID, seq: Int64, text: String, clientID: String?, via: String?, alsoToChat: Bool) async throws
        -> Message
    {
        try await link.send(
            Args.Send(
                to: .chat(chat), text: text, clientID: clientID ?? UUID().uuidString.lowercased(), via: via, thread: seq,
                alsoToChat: alsoToChat ? true : nil))
    }

    public func openThread(chat: ChatID, seq: Int64, title: String?) async throws -> ChatThread {
        try await link.call(OpDeclarations.openThread, Args.OpenThread(chat: chat, seq: seq, title: title))
    }

    public func thread(chat: ChatID, root: Int64) async throws -> ChatThread {
        try await link.call(OpDeclarations.thread, Args.Thread(chat: chat, root: root))
    }

    public func threads(in chat: ChatID, limit: Int) async throws -> [ChatThread] {
        try await link.call(OpDeclarations.threads, Args.Threads(chat: chat, limit: limit))
    }

    public func followedThreads(limit: Int) async throws -> [ChatThread] {
        try await link.call(OpDeclarations.followedThreads, Args.Limit(limit: limit))
    }

    public func history(chat: ChatID, flow: HistoryFlow, limit: Int, before: Int64?) async throws -> [Message] {
        try await link.call(OpDeclarations.history, Args.History(chat: chat, limit: limit, before: before, flow: flow))
    }

    public func setFollowing(_ following: ThreadFollowing, chat: ChatID, root: Int64) async throws -> ChatThread {
        try await link.call(OpDeclarations.followThread, Args.FollowThread(chat: chat, root: root, following: following))
    }

    public func markThreadRead(chat: ChatID, root: Int64, upTo seq: Int64) async throws -> ChatThread {
        try await link.call(OpDeclarations.markThreadRead, Args.ThreadRead(chat: chat, root: root, seq: seq))
    }
}
