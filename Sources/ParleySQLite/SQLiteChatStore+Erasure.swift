public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// Erasing an account.
extension SQLiteChatStore {
    public func eraseAccount(_ user: UserID, deleteMessages: Bool, holdHandleUntil until: Date, at time: Date) async throws -> [String] {
        try await pool.write { db in
            let id = user.rawValue
            guard let handle = try String.fetchOne(db, sql: "SELECT handle FROM user WHERE id = ? AND erased_at IS NULL", arguments: [id])
            else { return [] }
            try db.execute(
                sql: "INSERT OR REPLACE INTO handle_hold (handle, until) VALUES (?, ?)", arguments: [handle, until.storedMilliseconds])
            let at = time.storedMilliseconds
            // One statement a call: each takes the same two arguments.
            func run(_ sql: String) throws {
                try db.execute(sql: sql, arguments: StatementArguments(["user": id, "at": at]))
            }
            if deleteMessages {
                try run(
                    """
                    INSERT INTO search_change (message_id)
                        SELECT id FROM message WHERE sender_id = :user AND deleted_at IS NULL AND kind != 'system'
                    """)
                try run("DELETE FROM mention WHERE message_id IN (SELECT id FROM message WHERE sender_id = :user)")
                try run(
                    """
                    UPDATE chat SET last_text = '', last_media = NULL, last_kind = 'text', last_deleted_at = :at
                        WHERE last_message_id IN (SELECT id FROM message WHERE sender_id = :user AND kind != 'system')
                    """)
                try run(
                    """
                    UPDATE message SET text = '', media = NULL, kind = 'text', mentions = NULL, mentions_all = 0, reactions = NULL,
                        deleted_at = :at
                        WHERE sender_id = :user AND deleted_at IS NULL AND kind != 'system'
                    """)
            } else {
                try run(
                    """
                    UPDATE chat SET last_media = NULL, last_kind = 'text'
                        WHERE last_message_id IN (SELECT id FROM message WHERE sender_id = :user AND media IS NOT NULL)
                    """)
                try run("UPDATE message SET media = NULL, kind = 'text' WHERE sender_id = :user AND media IS NOT NULL")
            }
            let uploads = try String.fetchAll(db, sql: "SELECT media_id FROM media_upload WHERE user_id = ?", arguments: [id])
            for table in ["media_upload", "session", "bot_token", "identity", "reminder"] {
                try run("DELETE FROM \(table) WHERE user_id = :user")
            }
            try run("DELETE FROM presence_watch WHERE watcher_id = :user")
            try run("DELETE FROM ignore WHERE user_id = :user OR ignored_id = :user")
            // `deleted-` is reserved (`Limits.reservedHandlePrefixes`); an account that took
            // `deleted-ID` before it was leaves the placeholder a random tail instead.
            try run(
                """
                UPDATE user SET handle = CASE WHEN EXISTS (SELECT 1 FROM user o WHERE o.handle = 'deleted-' || :user AND o.id <> :user)
                        THEN 'deleted-' || id || '-' || lower(hex(randomblob(4))) ELSE 'deleted-' || id END,
                    display_name = 'Deleted user', email = NULL, phone = NULL,
                    password_hash = NULL, avatar = NULL, away = NULL, erased_at = :at
                    WHERE id = :user
                """)
            var gone: [String] = []
            for media in Set(uploads) {
                let unused = try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT NOT EXISTS (SELECT 1 FROM message WHERE substr(media, 1, 64) = ?1 AND media IS NOT NULL)
                            AND NOT EXISTS (SELECT 1 FROM user WHERE avatar = ?1)
                            AND NOT EXISTS (SELECT 1 FROM media_upload WHERE media_id = ?1)
                        """, arguments: [media])
                guard unused == true else { continue }
                try db.execute(sql: "DELETE FROM media WHERE id = ?", arguments: [media])
                gone.append(media)
            }
            return gone
        }
    }

    public func isHandleHeld(_ handle: String, at time: Date) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT 1 FROM handle_hold WHERE handle = ? AND until > ?", arguments: [handle, time.storedMilliseconds]) ?? false
        }
    }
}
