public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// Retention: messages past their chat's or the server's keeping time are deleted for
/// good, in small batches, each its own short transaction.
extension SQLiteChatStore {
    public func expireMessages(sentBefore cutoff: Date, in chat: ChatID?, limit: Int, at time: Date) async throws -> (
        messages: Int, media: Int
    ) {
        try await pool.write { db in
            // The oldest first: in a chat by seq, else in the order stored; only the run
            // of those older than the cutoff, so the scan stops at the first newer one.
            let rows =
                if let chat {
                    try Row.fetchAll(
                        db, sql: "SELECT id, chat_id, seq, media, sent_at, thread_seq FROM message WHERE chat_id = ? ORDER BY seq LIMIT ?",
                        arguments: [chat.rawValue, limit])
                } else {
                    try Row.fetchAll(
                        db, sql: "SELECT id, chat_id, seq, media, sent_at, thread_seq FROM message ORDER BY id LIMIT ?", arguments: [limit])
                }
            let before = cutoff.storedMilliseconds
            // Prepared once a batch, each run per message.
            let noteChange = try db.cachedStatement(sql: "INSERT INTO search_change (message_id) VALUES (?)")
            let dropReactions = try db.cachedStatement(sql: "DELETE FROM reaction WHERE chat_id = ? AND seq = ?")
            let dropMessage = try db.cachedStatement(sql: "DELETE FROM message WHERE id = ?")
            let clearLast = try db.cachedStatement(
                sql: """
                    UPDATE chat SET last_text = '', last_media = NULL, last_kind = 'text', last_deleted_at = ?
                    WHERE id = ? AND last_message_id = ?
                    """)
            // A thread counts what is left of it, and goes with its root and its last message.
            let recount = try db.cachedStatement(
                sql: """
                    UPDATE thread SET replies = (SELECT count(*) FROM message m WHERE m.chat_id = ?1 AND m.thread_seq = ?2)
                    WHERE chat_id = ?1 AND root_seq = ?2
                    """)
            let dropThread = try db.cachedStatement(
                sql: """
                    DELETE FROM thread WHERE chat_id = ?1 AND root_seq = ?2 AND replies = 0
                        AND NOT EXISTS (SELECT 1 FROM message WHERE chat_id = ?1 AND seq = ?2)
                    """)
            var (messages, media) = (0, 0)
            for row in rows {
                guard (row[4] as Int64) < before else { break }
                let (id, chatID, seq): (Int64, Int64, Int64) = (row[0], row[1], row[2])
                try noteChange.execute(arguments: [id])
                try dropReactions.execute(arguments: [chatID, seq])
                try dropMessage.execute(arguments: [id])
                try clearLast.execute(arguments: [time.storedMilliseconds, chatID, id])
                let root = (row[5] as Int64?) ?? seq
                try recount.execute(arguments: [chatID, root])
                try dropThread.execute(arguments: [chatID, root])
                if let mediaID = MediaColumn.decode(row[3])?.id {
                    media += 1
                    try db.execute(
                        sql: """
                            DELETE FROM media_upload WHERE media_id = ?1
                                AND NOT EXISTS (SELECT 1 FROM message WHERE substr(media, 1, 64) = ?1)
                                AND NOT EXISTS (SELECT 1 FROM user WHERE avatar = ?1)
                            """, arguments: [mediaID])
                }
                messages += 1
            }
            return (messages, media)
        }
    }

    public func retentionPolicies() async throws -> [(chat: ChatID, days: Int)] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, retention_days FROM chat WHERE retention_days IS NOT NULL").map {
                (ChatID($0[0] as Int64), $0[1])
            }
        }
    }
}
