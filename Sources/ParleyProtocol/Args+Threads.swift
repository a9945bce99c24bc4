import Foundation
public import ParleyCore

/// Arguments of the thread ops.
extension Args {
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
