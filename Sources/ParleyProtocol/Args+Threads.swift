import Foundation
public import ParleyCore

/// Arguments of the thread ops, and of `history`, which pages a chat's flows.
extension Args {
    public struct History: Codable, Sendable {
        public var chat: ChatID
        public var limit: Int?
        public var before: Int64?
        /// One thread's messages (its root's seq), or with `main` the chat's main flow;
        /// neither: every message.
        public var thread: Int64?
        public var main: Bool?
        public init(chat: ChatID, limit: Int, before: Int64?, flow: HistoryFlow = .all) {
            switch flow {
            case .all: break
            case .main: main = true
            case .thread(let root): thread = root
            }
            self.chat = chat
            self.limit = limit
            self.before = before
        }
    }

    public struct OpenThread: Codable, Sendable {
        public var chat: ChatID
        public var seq: Int64
        public var title: String?
        public init(chat: ChatID, seq: Int64, title: String?) {
            self.chat = chat
            self.seq = seq
            self.title = title
        }
    }

    public struct Thread: Codable, Sendable {
        public var chat: ChatID
        public var root: Int64
        public init(chat: ChatID, root: Int64) {
            self.chat = chat
            self.root = root
        }
    }

    public struct Threads: Codable, Sendable {
        public var chat: ChatID
        public var limit: Int?
        public init(chat: ChatID, limit: Int?) {
            self.chat = chat
            self.limit = limit
        }
    }

    public struct FollowThread: Codable, Sendable {
        public var chat: ChatID
        public var root: Int64
        public var following: ThreadFollowing
        public init(chat: ChatID, root: Int64, following: ThreadFollowing) {
            self.chat = chat
            self.root = root
            self.following = following
        }
    }

    public struct ThreadRead: Codable, Sendable {
        public var chat: ChatID
        public var root: Int64
        public var seq: Int64
        public init(chat: ChatID, root: Int64, seq: Int64) {
            self.chat = chat
            self.root = root
            self.seq = seq
        }
    }
}

extension Args.History {
    /// Which messages the page holds: one thread's, the main flow's, or all.
    public var flow: HistoryFlow {
        if let thread { return .thread(thread) }
        return main == true ? .main : .all
    }
}
