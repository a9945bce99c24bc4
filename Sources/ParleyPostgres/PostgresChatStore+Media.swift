public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

// Media

/// Uploaded media, which messages carry it, avatars, and the sweep of unused uploads.
extension PostgresChatStore {
    public func recordMedia(_ media: MediaInfo, uploader: UserID, at time: Date) async throws {
        let now = time.storedMilliseconds
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO media (id, kind, type, size, width, height, created_at)
                VALUES (\(media.id), \(media.kind.rawValue), \(media.type), \(media.size), \(media.width.map(Int64.init)),
                        \(media.height.map(Int64.init)), \(now))
                ON CONFLICT (id) DO NOTHING
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO media_upload (media_id, user_id, uploaded_at) VALUES (\(media.id), \(uploader.rawValue), \(now))
                ON CONFLICT (media_id, user_id) DO UPDATE SET uploaded_at = excluded.uploaded_at
                """, logger: logger)
        }
    }

    public func media(id: String) async throws -> MediaInfo? {
        guard let row = try await rows("SELECT id, kind, type, size, width, height FROM media WHERE id = \(id)").first else { return nil }
        var cells = Cells(row)
        return MediaInfo(
            id: try cells.next(), kind: MediaKind(rawValue: try cells.next()) ?? .image, type: try cells.next(), size: try cells.next(),
            width: try cells.next(Int64?.self).map { Int($0) }, height: try cells.next(Int64?.self).map { Int($0) })
    }

    public func isAvatar(media id: String) async throws -> Bool {
        try await !rows("SELECT 1 FROM users WHERE avatar = \(id) LIMIT 1").isEmpty
    }

    public func newestMessages(carrying media: String, in chats: [ChatID]) async throws -> [ChatID: Int64] {
        guard !chats.isEmpty else { return [:] }
        let found = try await rows(
            """
            SELECT chat_id, max(seq) FROM message
            WHERE substr(media, 1, 64) = \(media) AND media IS NOT NULL AND chat_id = ANY(\(chats.map(\.rawValue)))
            GROUP BY chat_id
            """)
        var newest: [ChatID: Int64] = [:]
        for row in found {
            let (chat, seq) = try row.decode((Int64, Int64).self)
            newest[ChatID(chat)] = seq
        }
        return newest
    }

    public func hasUploaded(media id: String, user: UserID) async throws -> Bool {
        try await !rows("SELECT 1 FROM media_upload WHERE media_id = \(id) AND user_id = \(user.rawValue)").isEmpty
    }

    public func setAvatar(_ media: String?, of user: UserID) async throws -> User {
        try await rows("UPDATE users SET avatar = \(media) WHERE id = \(user.rawValue)")
        guard let updated = try await self.user(id: user) else { throw ParleyError(.unknownUser, "no such user") }
        return updated
    }

    public func forgetUnusedMedia(recordedBefore time: Date) async throws -> [String] {
        try await rows(
            """
            DELETE FROM media WHERE created_at < \(time.storedMilliseconds)
                AND NOT EXISTS (SELECT 1 FROM message WHERE substr(message.media, 1, 64) = media.id AND message.media IS NOT NULL)
                AND NOT EXISTS (SELECT 1 FROM users WHERE avatar = media.id)
            RETURNING id
            """
        ).map { try $0.decode(String.self) }
    }
}
