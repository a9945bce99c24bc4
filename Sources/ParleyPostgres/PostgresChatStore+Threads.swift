public import Foundation
public import ParleyCore
public import ParleyStore
import PostgresNIO

/// `ThreadsStore`: threads' titles and counts, and each member's following and reading.
extension PostgresChatStore {
    public func openThread(chat: ChatID, root: Int64, title: String?, item: String?, at time: Date) async throws {
        _ = try await rows(
            """
            INSERT INTO thread (chat_id, root_seq, title, created_at, item)
            VALUES (\(chat.rawValue), \(root), NULLIF(\(title)::text, ''), \(time.storedMilliseconds),
                CASE WHEN EXISTS (SELECT 1 FROM thread WHERE chat_id = \(chat.rawValue) AND item = \(item)::text) THEN NULL ELSE \(item)::text END)
            ON CONFLICT (chat_id, root_seq) DO UPDATE
            SET title = CASE WHEN \(title)::text IS NULL THEN thread.title ELSE NULLIF(\(title)::text, '') END
            """)
    }

    public func threadRoot(chat: ChatID, item: String) async throws -> Int64? {
        guard let row = try await rows("SELECT root_seq FROM thread WHERE chat_id = \(chat.rawValue) AND item = \(item)").first else {
            return nil
        }
        var cells = Cells(row)
        return try cells.next(Int64.self)
    }

    public func thread(chat: ChatID, root: Int64, user: UserID) async throws -> ChatThread? {
        try await rows(
            """
            \(unescaped: Self.threadColumns(user)) WHERE t.chat_id = \(chat.rawValue) AND t.root_seq = \(root)
            """
        ).first.map(Self.thread)
    }

    public func threads(chat: ChatID, user: UserID, limit: Int) async throws -> [ChatThread] {
        try await rows(
            """
            \(unescaped: Self.threadColumns(user)) WHERE t.chat_id = \(chat.rawValue)
            ORDER BY coalesce(t.last_at, t.created_at) DESC, t.root_seq DESC LIMIT \(Int64(limit))
            """
        ).map(Self.thread)
    }

    public func followedThreads(user: UserID, limit: Int) async throws -> [ChatThread] {
        try await rows(
            """
            SELECT * FROM (
                \(unescaped: Self.threadColumns(user))
                JOIN member mb ON mb.chat_id = t.chat_id AND mb.user_id = \(user.rawValue)
                WHERE tm.following = 'following'
            ) f
            ORDER BY f.unread > 0 DESC, f.active DESC, f.root_seq DESC LIMIT \(Int64(limit))
            """
        ).map(Self.thread)
    }

    public func setFollowing(_ following: ThreadFollowing, chat: ChatID, root: Int64, users: [UserID], onlyIfUnset: Bool) async throws {
        guard !users.isEmpty else { return }
        _ = try await rows(
            """
            INSERT INTO thread_member (chat_id, root_seq, user_id, following)
            SELECT \(chat.rawValue), \(root), u, \(following.rawValue) FROM unnest(\(users.map(\.rawValue))::bigint[]) AS u
            ON CONFLICT (chat_id, root_seq, user_id) DO UPDATE SET following = excluded.following
            WHERE NOT \(onlyIfUnset) OR thread_member.following = 'none'
            """)
    }

    public func unreadInThreads(by user: UserID) async throws -> [ChatID: UnreadCount] {
        var unread: [ChatID: UnreadCount] = [:]
        for row in try await rows(
            """
            SELECT m.chat_id, count(*)::bigint,
                count(*) FILTER (WHERE m.mentions_all OR EXISTS (SELECT 1 FROM mention mn
                    WHERE mn.user_id = mb.user_id AND mn.chat_id = m.chat_id AND mn.seq = m.seq))::bigint
            FROM member mb JOIN message m ON m.chat_id = mb.chat_id AND m.seq > mb.read_seq
            WHERE mb.user_id = \(user.rawValue) AND EXISTS (SELECT 1 FROM thread t WHERE t.chat_id = mb.chat_id)
                AND m.thread_seq IS NOT NULL AND NOT m.also_chat
            GROUP BY m.chat_id
            """)
        {
            var cells = Cells(row)
            unread[ChatID(try cells.next(Int64.self))] = UnreadCount(
                messages: Int(clamping: try cells.next(Int64.self)), mentions: Int(clamping: try cells.next(Int64.self)))
        }
        return unread
    }

    public func markThreadRead(chat: ChatID, root: Int64, user: UserID, seq: Int64) async throws {
        _ = try await rows(
            """
            INSERT INTO thread_member (chat_id, root_seq, user_id, read_seq) VALUES (\(chat.rawValue), \(root), \(user.rawValue), \(seq))
            ON CONFLICT (chat_id, root_seq, user_id) DO UPDATE SET read_seq = GREATEST(thread_member.read_seq, excluded.read_seq)
            """)
    }

    /// A thread's columns as `user` sees it: its unread messages are those past their
    /// read position, not their own and not deleted. The user's id is a number, written
    /// into the text.
    private static func threadColumns(_ user: UserID) -> String {
        """
        SELECT t.chat_id, t.root_seq, t.title, t.replies, t.last_seq, t.last_at, coalesce(tm.following, 'none'),
            (SELECT count(*) FROM message x WHERE x.chat_id = t.chat_id AND x.thread_seq = t.root_seq
                AND x.seq > coalesce(tm.read_seq, 0) AND x.sender_id <> \(user.rawValue) AND x.deleted_at IS NULL) AS unread,
            coalesce(t.last_at, t.created_at) AS active,
            (SELECT count(*) FROM message x WHERE x.chat_id = t.chat_id AND x.thread_seq = t.root_seq
                AND x.seq > coalesce(tm.read_seq, 0) AND x.sender_id <> \(user.rawValue) AND x.deleted_at IS NULL
                AND (x.mentions_all OR EXISTS (SELECT 1 FROM mention mn
                    WHERE mn.user_id = \(user.rawValue) AND mn.chat_id = x.chat_id AND mn.seq = x.seq))) AS mentions
        FROM thread t LEFT JOIN thread_member tm ON tm.chat_id = t.chat_id AND tm.root_seq = t.root_seq AND tm.user_id = \(user.rawValue)
        """
    }

    private static func thread(_ row: PostgresRow) throws -> ChatThread {
        var cells = Cells(row)
        let (chat, root, title) = (ChatID(try cells.next(Int64.self)), try cells.next(Int64.self), try cells.next(String?.self))
        let (replies, lastSeq, lastActivity) = (try cells.next(Int64.self), try cells.next(Int64?.self), try cells.optionalDate())
        let following = ThreadFollowing(rawValue: try cells.next(String.self)) ?? .none
        let unread = try cells.next(Int64.self)
        _ = try cells.optionalDate()  // the order's activity
        return ChatThread(
            chatID: chat, root: root, title: title, replies: Int(clamping: replies), lastSeq: lastSeq, lastActivity: lastActivity,
            unread: Int(clamping: unread), mentions: Int(clamping: try cells.next(Int64.self)), following: following)
    }
}
