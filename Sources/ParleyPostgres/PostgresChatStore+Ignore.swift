public import Foundation
public import ParleyCore
public import ParleyStore
import PostgresNIO

/// `IgnoreStore`: whom users ignore, and each member's notification level.
extension PostgresChatStore {
    public func setIgnore(_ on: Bool, user: UserID, target: UserID, at time: Date) async throws -> Bool {
        let changed =
            on
            ? try await rows(
                """
                INSERT INTO ignore (user_id, ignored_id, created_at) VALUES (\(user.rawValue), \(target.rawValue), \(time.storedMilliseconds))
                ON CONFLICT DO NOTHING RETURNING user_id
                """)
            : try await rows("DELETE FROM ignore WHERE user_id = \(user.rawValue) AND ignored_id = \(target.rawValue) RETURNING user_id")
        return !changed.isEmpty
    }

    public func ignored(by user: UserID) async throws -> [UserRef] {
        try await rows(
            """
            SELECT u.id, u.handle, u.display_name, u.is_bot FROM ignore i JOIN users u ON u.id = i.ignored_id
            WHERE i.user_id = \(user.rawValue) ORDER BY lower(u.handle)
            """
        ).map { row in
            var cells = Cells(row)
            return UserRef(
                id: UserID(try cells.next(Int64.self)), handle: try cells.next(), displayName: try cells.next(), isBot: try cells.next())
        }
    }

    public func ignorers(of sender: UserID) async throws -> [UserID] {
        try await rows("SELECT user_id FROM ignore WHERE ignored_id = \(sender.rawValue)").map { row in
            var cells = Cells(row)
            return UserID(try cells.next(Int64.self))
        }
    }

    public func unreadFromIgnored(by user: UserID) async throws -> [ChatID: UnreadCount] {
        var counts: [ChatID: UnreadCount] = [:]
        let found = try await rows(
            """
            SELECT m.chat_id, count(*)::bigint,
                   count(*) FILTER (WHERE m.mentions_all OR EXISTS (SELECT 1 FROM mention mn
                       WHERE mn.user_id = mb.user_id AND mn.chat_id = m.chat_id AND mn.seq = m.seq))::bigint
            FROM member mb
            JOIN message m ON m.chat_id = mb.chat_id AND m.seq > mb.read_seq
            JOIN ignore i ON i.user_id = mb.user_id AND i.ignored_id = m.sender_id
            WHERE mb.user_id = \(user.rawValue) GROUP BY m.chat_id
            """)
        for row in found {
            var cells = Cells(row)
            counts[ChatID(try cells.next(Int64.self))] = UnreadCount(
                messages: Int(try cells.next(Int64.self)), mentions: Int(try cells.next(Int64.self)))
        }
        return counts
    }

    public func setNotify(_ level: NotifyLevel?, user: UserID, chat: ChatID) async throws -> Bool {
        !(try await rows(
            "UPDATE member SET notify = \(level?.rawValue) WHERE user_id = \(user.rawValue) AND chat_id = \(chat.rawValue) RETURNING user_id"
        )).isEmpty
    }
}
