public import Foundation
public import ParleyCore
public import ParleyStore
import PostgresNIO

/// Edits, deletions, reactions and mentions of messages. Each change locks the
/// message's row first, so two changes to one message from two nodes go one after
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

    public func mentions(of user: UserID, limit: Int) async throws -> [Message] {
        let id = user.rawValue
        return try await rows(
            """
            SELECT \(unescaped: PostgresRows.messageColumns)
            FROM (SELECT message_id AS id FROM mention WHERE user_id = \(id)
                  UNION
                  SELECT a.id FROM member mb2 JOIN message a ON a.chat_id = mb2.chat_id AND a.mentions_all
                  WHERE mb2.user_id = \(id) AND a.sender_id <> \(id)) x
            JOIN message m ON m.id = x.id
            JOIN member mb ON mb.chat_id = m.chat_id AND mb.user_id = \(id)
            \(unescaped: PostgresRows.messageJoins)
            WHERE m.seq > mb.cleared_seq AND m.deleted_at IS NULL
            ORDER BY m.id DESC LIMIT \(Int64(limit))
            """
        ).map(PostgresRows.message)
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

/// Topics and rules of groups, away messages, activity and sessions.
extension PostgresChatStore {
    public func setTopic(_ topic: String?, of chat: ChatID, by handle: String, at time: Date) async throws -> Chat? {
        try await rows(
            """
            UPDATE chat SET topic = \(topic), topic_set_by = \(handle), topic_set_at = \(time.storedMilliseconds)
            WHERE id = \(chat.rawValue)
            """)
        return try await self.chat(id: chat)
    }

    public func setGroupRules(of chat: ChatID, _ change: GroupRulesChange) async throws -> Chat? {
        let limit = change.memberLimit.map(Int64.init)
        let retention = change.retentionDays.map(Int64.init)
        try await rows(
            """
            UPDATE chat SET anyone_sets_topic = coalesce(\(change.anyoneSetsTopic), anyone_sets_topic),
                anyone_mentions_all = coalesce(\(change.anyoneMentionsAll), anyone_mentions_all),
                is_public = coalesce(\(change.isPublic), is_public), moderated = coalesce(\(change.moderated), moderated),
                unlisted = coalesce(\(change.unlisted), unlisted),
                member_limit = CASE WHEN \(limit)::bigint IS NULL THEN member_limit ELSE nullif(\(limit)::bigint, 0) END,
                join_key = CASE WHEN \(change.key)::text IS NULL THEN join_key ELSE nullif(\(change.key)::text, '') END,
                retention_days = CASE WHEN \(retention)::bigint IS NULL THEN retention_days ELSE nullif(\(retention)::bigint, 0) END
            WHERE id = \(chat.rawValue)
            """)
        return try await self.chat(id: chat)
    }

    public func publicGroups(prefix: String, limit: Int, offset: Int) async throws -> [GroupListing] {
        let pattern = StoredText.likePrefix(prefix.lowercased())
        let found = try await rows(
            """
            SELECT \(unescaped: PostgresRows.chatColumns) FROM chat c
            WHERE c.kind = 'group' AND c.is_public AND NOT c.unlisted AND c.handle LIKE \(pattern) ESCAPE '\\'
            ORDER BY c.handle LIMIT \(Int64(limit)) OFFSET \(Int64(offset))
            """)
        let chats = try await client.withConnection { connection in
            try await PostgresRows.chats(found, on: connection, logger: logger)
        }
        let ids = chats.map(\.id.rawValue)
        var counts: [Int64: Int64] = [:]
        for row in try await rows("SELECT chat_id, count(*) FROM member WHERE chat_id = ANY(\(ids)) GROUP BY chat_id") {
            let (chat, count) = try row.decode((Int64, Int64).self)
            counts[chat] = count
        }
        return chats.map { GroupListing(chat: $0, members: Int(clamping: counts[$0.id.rawValue] ?? 0)) }
    }

    public func joinKey(of chat: ChatID) async throws -> String? {
        guard let row = try await rows("SELECT join_key FROM chat WHERE id = \(chat.rawValue)").first else { return nil }
        return try row.decode(String?.self)
    }

    public func setBan(_ handle: String, in chat: ChatID, banned: Bool, at time: Date) async throws -> Bool {
        let folded = handle.lowercased()
        if banned {
            return try await !rows(
                """
                INSERT INTO ban (chat_id, handle, banned_at) VALUES (\(chat.rawValue), \(folded), \(time.storedMilliseconds))
                ON CONFLICT DO NOTHING RETURNING 1
                """
            ).isEmpty
        }
        return try await !rows("DELETE FROM ban WHERE chat_id = \(chat.rawValue) AND handle = \(folded) RETURNING 1").isEmpty
    }

    public func isBanned(_ handle: String, in chat: ChatID) async throws -> Bool {
        try await !rows("SELECT 1 FROM ban WHERE chat_id = \(chat.rawValue) AND handle = \(handle.lowercased())").isEmpty
    }

    public func bans(of chat: ChatID) async throws -> [String] {
        try await rows("SELECT handle FROM ban WHERE chat_id = \(chat.rawValue) ORDER BY banned_at, handle").map {
            try $0.decode(String.self)
        }
    }

    public func recordSeen(_ user: UserID, at time: Date) async throws {
        try await rows("UPDATE users SET last_seen_at = \(time.storedMilliseconds) WHERE id = \(user.rawValue)")
    }

    public func activity(of user: UserID) async throws -> StoredActivity? {
        try await rows("SELECT last_login_at, last_seen_at, hide_activity, away FROM users WHERE id = \(user.rawValue)").first.map { row in
            var cells = Cells(row)
            return StoredActivity(
                lastSignIn: try cells.optionalDate(), lastSeen: try cells.optionalDate(), hidden: try cells.next(), away: try cells.next())
        }
    }

    public func setActivityHidden(_ hidden: Bool, of user: UserID) async throws {
        try await rows("UPDATE users SET hide_activity = \(hidden) WHERE id = \(user.rawValue)")
    }

    public func ircPlayback(of user: UserID) async throws -> Int? {
        guard let row = try await rows("SELECT irc_playback FROM users WHERE id = \(user.rawValue)").first else { return nil }
        var cells = Cells(row)
        return try cells.next()
    }

    public func setIRCPlayback(_ limit: Int?, of user: UserID) async throws {
        try await rows("UPDATE users SET irc_playback = \(limit) WHERE id = \(user.rawValue)")
    }

    public func setAway(_ message: String?, of user: UserID) async throws -> Bool {
        try await !rows(
            "UPDATE users SET away = \(message) WHERE id = \(user.rawValue) AND away IS DISTINCT FROM \(message) RETURNING 1"
        ).isEmpty
    }

    public func away(of users: [UserID]) async throws -> [UserID: String] {
        guard !users.isEmpty else { return [:] }
        var away: [UserID: String] = [:]
        for row in try await rows("SELECT id, away FROM users WHERE away IS NOT NULL AND id = ANY(\(users.map(\.rawValue)))") {
            let (id, message) = try row.decode((Int64, String).self, context: .default)
            away[UserID(id)] = message
        }
        return away
    }

    public func sessions(of user: UserID, now: Date) async throws -> [StoredSession] {
        try await rows(
            """
            SELECT token_hash, client, address, created_at, last_active_at FROM session
            WHERE user_id = \(user.rawValue) AND expires_at > \(now.storedMilliseconds) ORDER BY created_at, token_hash
            """
        ).map { row in
            var cells = Cells(row)
            let hash: ByteBuffer = try cells.next()
            return StoredSession(
                tokenHash: Data(hash.readableBytesView), client: try cells.next(), address: try cells.next(), createdAt: try cells.date(),
                lastActiveAt: try cells.date())
        }
    }

    public func touchSession(tokenHash: Data, at time: Date) async throws {
        try await rows("UPDATE session SET last_active_at = \(time.storedMilliseconds) WHERE token_hash = \(tokenHash)")
    }
}
