public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// Erasing an account.
extension PostgresChatStore {
    public func eraseAccount(_ user: UserID, deleteMessages: Bool, holdHandleUntil until: Date, at time: Date) async throws -> [String] {
        try await transaction { connection in
            let id = user.rawValue
            let found = try await connection.query(
                "SELECT handle FROM users WHERE id = \(id) AND erased_at IS NULL FOR UPDATE", logger: logger
            ).collect()
            guard let row = found.first else { return [] }
            var cells = Cells(row)
            let handle: String = try cells.next()
            try await connection.query(
                """
                INSERT INTO handle_hold (handle, until) VALUES (\(handle.lowercased()), \(until.storedMilliseconds))
                ON CONFLICT (handle) DO UPDATE SET until = excluded.until
                """, logger: logger)
            let at = time.storedMilliseconds
            if deleteMessages {
                try await connection.query(
                    "DELETE FROM mention WHERE message_id IN (SELECT id FROM message WHERE sender_id = \(id))", logger: logger)
                try await connection.query(
                    """
                    UPDATE chat SET last_text = '', last_media = NULL, last_kind = 'text', last_deleted_at = \(at)
                    WHERE last_message_id IN (SELECT id FROM message WHERE sender_id = \(id) AND kind <> 'system')
                    """, logger: logger)
                try await connection.query(
                    """
                    UPDATE message SET text = '', media = NULL, kind = 'text', mentions = NULL, mentions_all = false, reactions = NULL,
                        deleted_at = \(at)
                    WHERE sender_id = \(id) AND deleted_at IS NULL AND kind <> 'system'
                    """, logger: logger)
            } else {
                try await connection.query(
                    """
                    UPDATE chat SET last_media = NULL, last_kind = 'text'
                    WHERE last_message_id IN (SELECT id FROM message WHERE sender_id = \(id) AND media IS NOT NULL)
                    """, logger: logger)
                try await connection.query(
                    "UPDATE message SET media = NULL, kind = 'text' WHERE sender_id = \(id) AND media IS NOT NULL", logger: logger)
            }
            var uploads: [String] = []
            for row in try await connection.query("DELETE FROM media_upload WHERE user_id = \(id) RETURNING media_id", logger: logger)
                .collect()
            {
                var cells = Cells(row)
                uploads.append(try cells.next())
            }
            try await connection.query("DELETE FROM session WHERE user_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM bot_token WHERE user_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM identity WHERE user_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM reminder WHERE user_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM presence_watch WHERE watcher_id = \(id)", logger: logger)
            try await connection.query("DELETE FROM ignore WHERE user_id = \(id) OR ignored_id = \(id)", logger: logger)
            try await connection.query(
                """
                UPDATE users SET handle = CASE
                        WHEN EXISTS (SELECT 1 FROM users o WHERE lower(o.handle) = 'deleted-' || \(id) AND o.id <> \(id))
                        THEN 'deleted-' || id || '-' || substr(md5(random()::text), 1, 8) ELSE 'deleted-' || id END,
                    display_name = 'Deleted user', email = NULL, phone = NULL,
                    password_hash = NULL, avatar = NULL, away = NULL, erased_at = \(at)
                WHERE id = \(id)
                """, logger: logger)
            var gone: [String] = []
            for media in Set(uploads) {
                let deleted = try await connection.query(
                    """
                    DELETE FROM media WHERE id = \(media)
                        AND NOT EXISTS (SELECT 1 FROM message WHERE substr(message.media, 1, 64) = \(media))
                        AND NOT EXISTS (SELECT 1 FROM users WHERE avatar = \(media))
                        AND NOT EXISTS (SELECT 1 FROM media_upload WHERE media_id = \(media))
                    RETURNING id
                    """, logger: logger
                ).collect()
                if !deleted.isEmpty { gone.append(media) }
            }
            return gone
        }
    }

    public func isHandleHeld(_ handle: String, at time: Date) async throws -> Bool {
        !(try await rows("SELECT 1 FROM handle_hold WHERE handle = \(handle.lowercased()) AND until > \(time.storedMilliseconds)").isEmpty)
    }
}
