public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `MediaStore`: uploaded media, who may see it, and avatars.
extension SQLiteChatStore {
    public func recordMedia(_ media: MediaInfo, uploader: UserID, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO media (id, kind, type, size, width, height, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO NOTHING
                    """,
                arguments: [
                    media.id, media.kind.rawValue, media.type, media.size, media.width, media.height, time.storedMilliseconds,
                ])
            try db.execute(
                sql: """
                    INSERT INTO media_upload (media_id, user_id, uploaded_at) VALUES (?, ?, ?)
                    ON CONFLICT (media_id, user_id) DO UPDATE SET uploaded_at = excluded.uploaded_at
                    """,
                arguments: [media.id, uploader.rawValue, time.storedMilliseconds])
        }
    }

    public func media(id: String) async throws -> MediaInfo? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT id, kind, type, size, width, height FROM media WHERE id = ?", arguments: [id]).map {
                MediaInfo(
                    id: $0[0], kind: MediaKind(rawValue: $0[1]) ?? .image, type: $0[2], size: $0[3], width: $0[4], height: $0[5])
            }
        }
    }

    public func isAvatar(media id: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM user WHERE avatar = ?)", arguments: [id]) ?? false
        }
    }

    public func newestMessages(carrying media: String, in chats: [ChatID]) async throws -> [ChatID: Int64] {
        guard !chats.isEmpty else { return [:] }
        return try await pool.read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT chat_id, max(seq) FROM message
                    WHERE substr(media, 1, 64) = ? AND media IS NOT NULL AND chat_id IN (SELECT value FROM json_each(?))
                    GROUP BY chat_id
                    """,
                arguments: [media, "[" + chats.map { String($0.rawValue) }.joined(separator: ",") + "]"])
            return Dictionary(uniqueKeysWithValues: rows.map { (ChatID($0[0] as Int64), $0[1] as Int64) })
        }
    }

    public func hasUploaded(media id: String, user: UserID) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM media_upload WHERE media_id = ? AND user_id = ?)",
                arguments: [id, user.rawValue]) ?? false
        }
    }

    public func setAvatar(_ media: String?, of user: UserID) async throws -> User {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET avatar = ? WHERE id = ?", arguments: [media, user.rawValue])
            guard let row = try Row.fetchOne(db, sql: "SELECT \(Rows.userColumns) FROM user u WHERE u.id = ?", arguments: [user.rawValue])
            else { throw ParleyError(.unknownUser, "no such user") }
            return Rows.user(row)
        }
    }

    public func forgetUnusedMedia(recordedBefore time: Date) async throws -> [String] {
        try await pool.write { db in
            try String.fetchAll(
                db,
                sql: """
                    DELETE FROM media WHERE created_at < ?
                        AND NOT EXISTS (SELECT 1 FROM message WHERE substr(media, 1, 64) = media.id AND message.media IS NOT NULL)
                        AND NOT EXISTS (SELECT 1 FROM user WHERE avatar = media.id)
                    RETURNING id
                    """,
                arguments: [time.storedMilliseconds])
        }
    }
}
