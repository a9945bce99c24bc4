public import Foundation
import GRDB
public import ParleyCore
public import ParleyStore

/// `ThreadsStore`: threads' titles and counts, and each member's following and reading.
extension SQLiteChatStore {
    public func openThread(chat: ChatID, root: Int64, title: String?, item: String?, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO thread (chat_id, root_seq, title, created_at, item)
                    VALUES (?1, ?2, NULLIF(?3, ''), ?4, CASE WHEN EXISTS (SELECT 1 FROM thread WHERE chat_id = ?1 AND item = ?5) THEN NULL ELSE ?5 END)
                    ON CONFLICT (chat_id, root_seq) DO UPDATE SET title = CASE WHEN ?3 IS NULL THEN title ELSE NULLIF(?3, '') END
                    """, arguments: [chat.rawValue, root, title, time.storedMilliseconds, item])
        }
    }

    public func threadRoot(chat: ChatID, item: String) async throws -> Int64? {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT root_seq FROM thread WHERE chat_id = ? AND item = ?", arguments: [chat.rawValue, item])
        }
    }

    public func thread(chat: ChatID, root: Int64, user: UserID) async throws -> ChatThread? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "\(Self.threadSelect) WHERE t.chat_id = ?2 AND t.root_seq = ?3", arguments: [user.rawValue, chat.rawValue, root]
            ).map(Self.thread)
        }
    }

    public func threads(chat: ChatID, user: UserID, limit: Int) async throws -> [ChatThread] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: "\(Self.threadSelect) WHERE t.chat_id = ?2 ORDER BY coalesce(t.last_at, t.created_at) DESC, t.root_seq DESC LIMIT ?3",
                arguments: [user.rawValue, chat.rawValue, limit]
            ).map(Self.thread)
        }
    }

    public func followedThreads(user: UserID, limit: Int) async throws -> [ChatThread] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    \(Self.threadSelect)
                    JOIN member mb ON mb.chat_id = t.chat_id AND mb.user_id = ?1
                    WHERE tm.following = 'following'
                    ORDER BY unread > 0 DESC, coalesce(t.last_at, t.created_at) DESC, t.root_seq DESC LIMIT ?2
                    """, arguments: [user.rawValue, limit]
            ).map(Self.thread)
        }
    }

    public func setFollowing(_ following: ThreadFollowing, chat: ChatID, root: Int64, users: [UserID], onlyIfUnset: Bool) async throws {
        try await pool.write { db in
            for user in users {
                try db.execute(
                    sql: """
                        INSERT INTO thread_member (chat_id, root_seq, user_id, following) VALUES (?1, ?2, ?3, ?4)
                        ON CONFLICT (chat_id, root_seq, user_id) DO UPDATE SET following = ?4 WHERE NOT ?5 OR following = 'none'
                        """, arguments: [chat.rawValue, root, user.rawValue, following.rawValue, onlyIfUnset])
            }
        }
    }

    public func unreadInThreads(by user: UserID) async throws -> [ChatID: UnreadCount] {
        try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT m.chat_id, count(*),
                        sum(CASE WHEN m.mentions_all = 1 OR EXISTS (SELECT 1 FROM mention mn
                            WHERE mn.user_id = mb.user_id AND mn.chat_id = m.chat_id AND mn.seq = m.seq) THEN 1 ELSE 0 END)
                    FROM member mb JOIN message m ON m.chat_id = mb.chat_id AND m.seq > mb.read_seq
                    WHERE mb.user_id = ? AND EXISTS (SELECT 1 FROM thread t WHERE t.chat_id = mb.chat_id)
                        AND m.thread_seq IS NOT NULL AND NOT m.also_chat
                    GROUP BY m.chat_id
                    """, arguments: [user.rawValue])
            return Dictionary(uniqueKeysWithValues: rows.map { (ChatID($0[0] as Int64), UnreadCount(messages: $0[1], mentions: $0[2])) })
        }
    }

    public func markThreadRead(chat: ChatID, root: Int64, user: UserID, seq: Int64) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO thread_member (chat_id, root_seq, user_id, read_seq) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (chat_id, root_seq, user_id) DO UPDATE SET read_seq = max(read_seq, ?4)
                    """, arguments: [chat.rawValue, root, user.rawValue, seq])
        }
    }

    /// A thread's columns as user ?1 sees it: its unread messages are those past their
    /// read position, not their own and not deleted.
    private static let threadSelect = """
        SELECT t.chat_id, t.root_seq, t.title, t.replies, t.last_seq, t.last_at, coalesce(tm.following, 'none'),
            (SELECT count(*) FROM message x WHERE x.chat_id = t.chat_id AND x.thread_seq = t.root_seq
                AND x.seq > coalesce(tm.read_seq, 0) AND x.sender_id <> ?1 AND x.deleted_at IS NULL) AS unread,
            t.created_at,
            (SELECT count(*) FROM message x WHERE x.chat_id = t.chat_id AND x.thread_seq = t.root_seq
                AND x.seq > coalesce(tm.read_seq, 0) AND x.sender_id <> ?1 AND x.deleted_at IS NULL
                AND (x.mentions_all OR EXISTS (SELECT 1 FROM mention mn WHERE mn.user_id = ?1 AND mn.chat_id = x.chat_id AND mn.seq = x.seq)))
        FROM thread t LEFT JOIN thread_member tm ON tm.chat_id = t.chat_id AND tm.root_seq = t.root_seq AND tm.user_id = ?1
        """

    private static func thread(_ row: Row) -> ChatThread {
        ChatThread(
            chatID: ChatID(row[0]), root: row[1], title: row[2], replies: Int(clamping: row[3] as Int64), lastSeq: row[4],
            lastActivity: Rows.date(row[5] as Int64?), unread: Int(clamping: row[7] as Int64), mentions: Int(clamping: row[9] as Int64),
            following: ThreadFollowing(rawValue: row[6]) ?? .none)
    }
}
