import ParleyCore
import Synchronization

/// The thread channels a client joined (`#ops/12`: the thread of message 12 of #ops),
/// kept with its channels.
extension IRCView {
    /// The thread a thread channel the client joined stands for.
    func joinedThread(_ name: String) -> (chat: Chat, root: Int64)? { state.withLock { $0.joinedThreads[name.lowercased()] } }

    /// The name of the channel the client follows a thread in, if it joined one.
    func threadChannel(of chat: ChatID, root: Int64) -> String? {
        state.withLock { $0.threadNames[ThreadSpot(chat: chat, root: root)] }
    }

    /// Keeps a thread channel the client joined; true if it was not in it yet.
    func enterThread(_ chat: Chat, root: Int64, as name: String) -> Bool {
        state.withLock { state in
            let first = state.joinedThreads[name.lowercased()] == nil
            state.joinedThreads[name.lowercased()] = (chat, root)
            state.threadNames[ThreadSpot(chat: chat.id, root: root)] = name
            return first
        }
    }

    /// The client left a thread channel; false if it was not in it.
    func leaveThread(_ name: String) -> Bool {
        state.withLock { state in
            guard let (chat, root) = state.joinedThreads.removeValue(forKey: name.lowercased()) else { return false }
            state.threadNames[ThreadSpot(chat: chat.id, root: root)] = nil
            return true
        }
    }
}

/// A thread of a chat, as a key.
struct ThreadSpot: Hashable, Sendable {
    var chat: ChatID
    var root: Int64
}
