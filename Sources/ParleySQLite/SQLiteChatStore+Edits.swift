public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `EditsStore`: changes to sent messages: edits, deletions, reactions.
extension SQLiteChatStore {
    public func editMessage(chat: ChatID, seq: Int64, text: String, at time: Date) async throws -> Message? {
        try await pool.write { db in
            guard let (id, _) = try Self.live(db, chat: chat, seq: seq) else { return try Self.message(db, chat: chat, seq: seq) }
            try db.execute(sql: "UPDATE message SET text = ?, edited_at = ? WHERE id = ?", arguments: [text, time.storedMilliseconds, id])
            try Self.noteSearchChange(db, id: id)
            try db.execute(sql: "UPDATE chat SET last_text = ? WHERE id = ? AND last_message_id = ?", arguments: [text, chat.rawValue, id])
            return try Self.message(db, chat: chat, seq: seq)
        }
    }

    public func deleteMessage(chat: ChatID, seq: Int64, at time: Date) async throws -> Message? {
        try await pool.write { db in
            guard let (id, column) = try Self.live(db, chat: chat, seq: seq) else { return try Self.message(db, chat: chat, seq: seq) }
            let media = MediaColumn.decode(column)?.id
            try Self.noteSearchChange(db, id: id)
            try db.execute(
                sql: """
                    UPDATE message SET text = '', media = NULL, kind = 'text', mentions = NULL, mentions_all = 0, reactions = NULL,
                        deleted_at = ?
                    WHERE id = ?
                    """, arguments: [time.storedMilliseconds, id])
            try db.execute(sql: "DELETE FROM mention WHERE message_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM reaction WHERE chat_id = ? AND seq = ?", arguments: [chat.rawValue, seq])
            try db.execute(
                sql: """
                    UPDATE chat SET last_text = '', last_media = NULL, last_kind = 'text', last_deleted_at = ?
                    WHERE id = ? AND last_message_id = ?
                    """, arguments: [time.storedMilliseconds, chat.rawValue, id])
            if let media {
                // Nobody may fetch it through this message any more; its uploader keeps it
                // only while another message or an avatar still uses it.
                try db.execute(
                    sql: """
                        DELETE FROM media_upload WHERE media_id = ?1
                            AND NOT EXISTS (SELECT 1 FROM message WHERE substr(media, 1, 64) = ?1)
                            AND NOT EXISTS (SELECT 1 FROM user WHERE avatar = ?1)
                        """, arguments: [media])
            }
            return try Self.message(db, chat: chat, seq: seq)
        }
    }

    public func react(chat: ChatID, seq: Int64, user: UserID, emoji: String, add: Bool, cap: Int, at time: Date) async throws
        -> (changed: Bool, reactions: [ReactionCount])?
    {
        try await pool.write { db in
            // Deleted meanwhile: a tombstone takes no reactions.
            guard try Self.live(db, chat: chat, seq: seq) != nil else { return (false, []) }
            let key: StatementArguments = [chat.rawValue, seq, emoji, user.rawValue]
            if add {
                let present =
                    try Bool.fetchOne(
                        db, sql: "SELECT EXISTS (SELECT 1 FROM reaction WHERE chat_id = ? AND seq = ? AND emoji = ?)",
                        arguments: [chat.rawValue, seq, emoji]) ?? false
                let kinds =
                    try Int.fetchOne(
                        db, sql: "SELECT count(DISTINCT emoji) FROM reaction WHERE chat_id = ? AND seq = ?",
                        arguments: [chat.rawValue, seq]) ?? 0
                if !present, kinds >= cap { return nil }
                try db.execute(
                    sql: "INSERT OR IGNORE INTO reaction (chat_id, seq, emoji, user_id, reacted_at) VALUES (?, ?, ?, ?, ?)",
                    arguments: key + [time.storedMilliseconds])
            } else {
                try db.execute(sql: "DELETE FROM reaction WHERE chat_id = ? AND seq = ? AND emoji = ? AND user_id = ?", arguments: key)
            }
            let changed = db.changesCount > 0
            let counts = try Row.fetchAll(
                db,
                sql: """
                    SELECT emoji, count(*) FROM reaction WHERE chat_id = ? AND seq = ?
                    GROUP BY emoji ORDER BY min(reacted_at), emoji
                    """, arguments: [chat.rawValue, seq]
            ).map { ReactionCount(emoji: $0[0], count: $0[1]) }
            if changed {
                try db.execute(
                    sql: "UPDATE message SET reactions = ? WHERE chat_id = ? AND seq = ?",
                    arguments: [MessageColumns.reactions(counts), chat.rawValue, seq])
            }
            return (changed, counts)
        }
    }

    /// The id and media column of a message that is not deleted.
    private static func live(_ db: Database, chat: ChatID, seq: Int64) throws -> (Int64, String?)? {
        try Row.fetchOne(
            db, sql: "SELECT id, media FROM message WHERE chat_id = ? AND seq = ? AND deleted_at IS NULL",
            arguments: [chat.rawValue, seq]
        ).map { ($0[0], $0[1]) }
    }

    private static func message(_ db: Database, chat: ChatID, seq: Int64) throws -> Message? {
        try Row.fetchOne(
            db, sql: "SELECT \(Rows.messageColumns) FROM message m \(Rows.messageJoins) WHERE m.chat_id = ? AND m.seq = ?",
            arguments: [chat.rawValue, seq]
        ).map { Rows.message($0) }
    }
}
