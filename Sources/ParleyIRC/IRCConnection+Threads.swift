import Foundation
import ParleyCore
import ParleyEngine

/// A thread as a channel of its own: `#ops/12` is the thread of message 12 of #ops. A
/// member of #ops joins it to read the thread in a buffer of its own (its topic the
/// thread's title and root, its names the group's, its messages so far played back);
/// what is said there goes into the thread, TOPIC names it, PART leaves it (not the
/// group), CHATHISTORY pages it. While joined, the thread's messages read there and no
/// longer in #ops.
extension IRCConnection {
    /// `#ops/12`: the group's channel and the root's number.
    static func threadChannel(_ name: String) -> (channel: String, root: Int64)? {
        guard name.hasPrefix("#"), let (channel, root) = ChatThread.address(name) else { return nil }
        return (String(channel), root)
    }

    /// The most of a thread played back when its channel is joined by a client that does
    /// not page history itself.
    static let threadPlayback = 50

    /// JOIN #ops/12. Naming a message in a thread joins that thread's channel, under its
    /// root's number; a message with no thread yet opens one.
    func joinThread(_ name: String) async throws {
        guard let (channel, seq) = Self.threadChannel(name), let me = view.me else { return }
        let chat = try await channelChat(channel)
        let thread = try await session.openThread(chat: chat.id, seq: seq, title: nil)
        guard let group = IRCView.channel(chat) else { return }
        let joined = "\(group)/\(thread.root)"
        guard view.enterThread(chat, root: thread.root, as: joined) else { return }
        emit(IRCView.join(me, channel: joined, capabilities: view.capabilities, realname: userLine?.realname))
        reply(IRCNumeric.topic, [joined, Self.threadTopic(thread)])
        try await sendNames(chat, channel: joined)
        guard !view.capabilities.contains(.chathistory) else { return }
        var messages = try await session.history(chat: chat.id, flow: .thread(thread.root), limit: Self.threadPlayback, before: nil)
        if let root = thread.rootMessage { messages.insert(root, at: 0) }
        let capabilities = view.capabilities
        let stamped = capabilities.contains(.serverTime)
        var lines: [IRCMessage] = []
        for message in messages {
            var shown = message
            // Without server-time, a line says when it was sent.
            if !stamped { shown.text = "[\(Self.playbackTime.format(message.sentAt))] " + shown.text }
            lines += IRCView.messageLines(shown, in: chat, me: me, capabilities: capabilities, link: view.mediaLink, threadChannel: joined)
        }
        emit(lines)
    }

    /// PART #ops/12: the client stops reading the thread apart; the user stays in #ops.
    func partThread(_ name: String) {
        guard view.leaveThread(name), let me = view.me else {
            reply(IRCNumeric.notOnChannel, [name, "You're not on that channel"])
            return
        }
        emit(IRCMessage(source: IRCView.prefix(me), command: "PART", params: [name]))
    }

    /// TOPIC #ops/12 [:title]: the thread's title and root, or a new title.
    func threadTopic(_ name: String, _ message: IRCMessage) async throws {
        guard let (_, seq) = Self.threadChannel(name) else { return }
        let chat = try await channelChat(name)
        guard message.params.count > 1 else {
            reply(IRCNumeric.topic, [name, Self.threadTopic(try await session.thread(chat: chat.id, root: seq))])
            return
        }
        let thread = try await session.openThread(chat: chat.id, seq: seq, title: message.params[1])
        if let me = view.me { emit(IRCMessage(source: IRCView.prefix(me), command: "TOPIC", params: [name, thread.title ?? ""])) }
    }

    /// `deploy friday — alice: "deploy friday?"`.
    static func threadTopic(_ thread: ChatThread) -> String {
        let root = thread.rootMessage.map { "\($0.sender.handle): \"\(IRCView.head(of: $0.text))\"" } ?? "message \(thread.root)"
        guard let title = thread.title else { return "thread of \(root)" }
        return "\(title) — \(root)"
    }
}
