public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// `EditsStore`: changes to sent messages: edits, deletions, reactions. Each change locks
/// the message's row first, so two changes to one message from two nodes go one after
/// the other.
extension PostgresChatStore {
    public func editMessage(chat: ChatID, seq: Int64, text: String, at time: Date) async throws -> Message? {
        try await transaction { connection in
            if let (id, _) = try await Self.lockLive(connection, chat: chat, seq: seq, logger: logger) {
                try await connection.query(
                    "UPDATE message SET text = \(text), edited_at = \(time.storedMilliseconds) WHERE id = \(id)", logger: logger)
                try await connection.query(
                    "UPDATE chat SET last_text = \(text) WHERE id = \(chat.rawValue) AND last_message_id = \(id)", logger: logger)
            }
            return try await Self.message(connection, chat: chat, seq: seq, logger: logger)
        }
    }

    public func deleteMessage(chat: ChatID, seq: Int64, at time: Date) async throws -> Message? {
        try await transaction { connection in
            if let (id, column) = try await Self.lockLive(connection, chat: chat, seq: seq, logger: logger) {
                let media = MediaColumn.decode(column)?.id
                let at = time.storedMilliseconds
                try await connection.query(
                    """
                    UPDATE message SET text = '', media = NULL, kind = 'text', mentions = NULL, mentions_all = false, reactions = NULL,
                        deleted_at = \(at)
                    WHERE id = \(id)
                    """, logger: logger)
                try await connection.query("DELETE FROM mention WHERE message_id = \(id)", logger: logger)
                try await connection.query("DELETE FROM reaction WHERE chat_id = \(chat.rawValue) AND seq = \(seq)", logger: logger)
                try await connection.query(
                    """
                    UPDATE chat SET last_text = '', last_media = NULL, last_kind = 'text', last_deleted_at = \(at)
                    WHERE id = \(chat.rawValue) AND last_message_id = \(id)
                    """, logger: logger)
                if let media {
                    try await connection.query(
                        """
                        DELETE FROM media_upload WHERE media_id = \(media)
                            AND NOT EXISTS (SELECT 1 FROM message WHERE substr(media, 1, 64) = \(media))
                            AND NOT EXISTS (SELECT 1 FROM users WHERE avatar = \(media))
                        """, logger: logger)
                }
            }
            return try await Self.message(connection, chat: chat, seq: seq, logger: logger)
        }
    }

    public func react(chat: ChatID, seq: Int64, user: UserID, emoji: String, add: Bool, cap: Int, at time: Date) async throws
        -> (changed: Bool, reactions: [ReactionCount])?
    {
        try await transaction { connection in
            guard try await Self.lockLive(connection, chat: chat, seq: seq, logger: logger) != nil else { return (false, []) }
            let changed: Bool
            if add {
                let kinds = try await connection.query(
                    """
                    SELECT count(DISTINCT emoji), bool_or(emoji = \(emoji)) FROM reaction WHERE chat_id = \(chat.rawValue) AND seq = \(seq)
                    """, logger: logger
                ).collect().first.map { try $0.decode((Int64, Bool?).self, context: .default) }
                if let kinds, kinds.1 != true, kinds.0 >= cap { return nil }
                changed = try await !connection.query(
                    """
                    INSERT INTO reaction (chat_id, seq, emoji, user_id, reacted_at)
                    VALUES (\(chat.rawValue), \(seq), \(emoji), \(user.rawValue), \(time.storedMilliseconds))
                    ON CONFLICT DO NOTHING RETURNING 1
                    """, logger: logger
                ).collect().isEmpty
            } else {
                changed = try await !connection.query(
                    """
                    DELETE FROM reaction WHERE chat_id = \(chat.rawValue) AND seq = \(seq) AND emoji = \(emoji) AND user_id = \(user.rawValue)
                    RETURNING 1
                    """, logger: logger
                ).collect().isEmpty
            }
            let counts = try await connection.query(
                """
                SELECT emoji, count(*) FROM reaction WHERE chat_id = \(chat.rawValue) AND seq = \(seq)
                GROUP BY emoji ORDER BY min(reacted_at), emoji
                """, logger: logger
            ).collect().map { row in
                let (emoji, count) = try row.decode((String, Int64).self, context: .default)
                return ReactionCount(emoji: emoji, count: Int(count))
            }
            if changed {
                try await connection.query(
                    """
                    UPDATE message SET reactions = \(MessageColumns.reactions(counts)) WHERE chat_id = \(chat.rawValue) AND seq = \(seq)
                    """, logger: logger)
            }
            return (changed, counts)
        }
    }

    /// Locks a message that is not deleted and returns its id and media column.
    private static func lockLive(_ connection: PostgresConnection, chat: ChatID, seq: Int64, logger: Logger) async throws
        -> (id: Int64, media: String?)?
    {
        try await connection.query(
            "SELECT id, media FROM message WHERE chat_id = \(chat.rawValue) AND seq = \(seq) AND deleted_at IS NULL FOR UPDATE",
            logger: logger
        ).collect().first.map { try $0.decode((Int64, String?).self, context: .default) }
    }

    private static func message(_ connection: PostgresConnection, chat: ChatID, seq: Int64, logger: Logger) async throws -> Message? {
        try await connection.query(
            """
            SELECT \(unescaped: PostgresRows.messageColumns) FROM message m \(unescaped: PostgresRows.messageJoins)
            WHERE m.chat_id = \(chat.rawValue) AND m.seq = \(seq)
            """, logger: logger
        ).collect().first.map(PostgresRows.message)
    }
}
