public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// Retention: messages past their chat's or the server's keeping time are deleted for
/// good, in small batches, each one transaction of a few statements.
extension PostgresChatStore {
    public func expireMessages(sentBefore cutoff: Date, in chat: ChatID?, limit: Int, at time: Date) async throws -> (
        messages: Int, media: Int
    ) {
        try await transaction { connection in
            // The oldest first: in a chat by seq, else in the order stored; only the run
            // of those older than the cutoff.
            let query: PostgresQuery =
                if let chat {
                    "SELECT id, chat_id, seq, media, sent_at FROM message WHERE chat_id = \(chat.rawValue) ORDER BY seq LIMIT \(limit) FOR UPDATE"
                } else {
                    "SELECT id, chat_id, seq, media, sent_at FROM message ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED"
                }
            var (ids, chats, seqs, media): ([Int64], [Int64], [Int64], [String]) = ([], [], [], [])
            let before = cutoff.storedMilliseconds
            for row in try await connection.query(query, logger: logger).collect() {
                var cells = Cells(row)
                let (id, chatID, seq): (Int64, Int64, Int64) = (try cells.next(), try cells.next(), try cells.next())
                let column: String? = try cells.next()
                guard try cells.next(Int64.self) < before else { break }
                ids.append(id)
                chats.append(chatID)
                seqs.append(seq)
                if let id = MediaColumn.decode(column)?.id { media.append(id) }
            }
            guard !ids.isEmpty else { return (0, 0) }
            let at = time.storedMilliseconds
            try await connection.query(
                "DELETE FROM reaction r USING unnest(\(chats), \(seqs)) AS d(chat_id, seq) WHERE r.chat_id = d.chat_id AND r.seq = d.seq",
                logger: logger)
            // A thread counts what is left of it, and goes with its root and its last message.
            var (rootChats, roots): ([Int64], [Int64]) = ([], [])
            for row in try await connection.query(
                "DELETE FROM message WHERE id = ANY(\(ids)) RETURNING chat_id, coalesce(thread_seq, seq)", logger: logger
            ).collect() {
                var cells = Cells(row)
                rootChats.append(try cells.next(Int64.self))
                roots.append(try cells.next(Int64.self))
            }
            try await connection.query(
                """
                UPDATE thread t SET replies = (SELECT count(*) FROM message m WHERE m.chat_id = t.chat_id AND m.thread_seq = t.root_seq)
                FROM unnest(\(rootChats), \(roots)) AS g(chat_id, root) WHERE t.chat_id = g.chat_id AND t.root_seq = g.root
                """, logger: logger)
            try await connection.query(
                """
                DELETE FROM thread t USING unnest(\(rootChats), \(roots)) AS g(chat_id, root)
                WHERE t.chat_id = g.chat_id AND t.root_seq = g.root AND t.replies = 0
                    AND NOT EXISTS (SELECT 1 FROM message m WHERE m.chat_id = g.chat_id AND m.seq = g.root)
                """, logger: logger)
            try await connection.query(
                """
                UPDATE chat SET last_text = '', last_media = NULL, last_kind = 'text', last_deleted_at = \(at)
                WHERE last_message_id = ANY(\(ids))
                """, logger: logger)
            if !media.isEmpty {
                try await connection.query(
                    """
                    DELETE FROM media_upload mu WHERE mu.media_id = ANY(\(media))
                        AND NOT EXISTS (SELECT 1 FROM message WHERE substr(message.media, 1, 64) = mu.media_id)
                        AND NOT EXISTS (SELECT 1 FROM users WHERE avatar = mu.media_id)
                    """, logger: logger)
            }
            return (ids.count, media.count)
        }
    }

    public func retentionPolicies() async throws -> [(chat: ChatID, days: Int)] {
        try await rows("SELECT id, retention_days FROM chat WHERE retention_days IS NOT NULL").map { row in
            var cells = Cells(row)
            return (ChatID(try cells.next(Int64.self)), Int(clamping: try cells.next(Int64.self)))
        }
    }
}
