public import Foundation
import GRDB
public import ParleyCore
public import ParleyStore

/// Edits, deletions, reactions and mentions of messages.
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

    public func mentions(of user: UserID, limit: Int) async throws -> [Message] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Rows.messageColumns)
                    FROM (SELECT message_id AS id FROM mention WHERE user_id = ?1
                          UNION
                          SELECT a.id FROM member mb2 JOIN message a ON a.chat_id = mb2.chat_id AND a.mentions_all = 1
                          WHERE mb2.user_id = ?1 AND a.sender_id <> ?1) x
                    JOIN message m ON m.id = x.id
                    JOIN member mb ON mb.chat_id = m.chat_id AND mb.user_id = ?1
                    \(Rows.messageJoins)
                    WHERE m.seq > mb.cleared_seq AND m.deleted_at IS NULL
                    ORDER BY m.id DESC LIMIT ?2
                    """, arguments: [user.rawValue, limit]
            ).map { Rows.message($0) }
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

    /// Notes that a message's text changed, for the search index to take up at its
    /// next batch (see `SearchIndexer`).
    static func noteSearchChange(_ db: Database, id: Int64) throws {
        try db.execute(sql: "INSERT INTO search_change (message_id) VALUES (?)", arguments: [id])
    }
}

/// Topics and rules of groups, away messages, activity and sessions.
extension SQLiteChatStore {
    public func setTopic(_ topic: String?, of chat: ChatID, by handle: String, at time: Date) async throws -> Chat? {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE chat SET topic = ?, topic_set_by = ?, topic_set_at = ? WHERE id = ?",
                arguments: [topic, handle, time.storedMilliseconds, chat.rawValue])
            return try Rows.chat(db, id: chat)
        }
    }

    public func setGroupRules(of chat: ChatID, _ change: GroupRulesChange) async throws -> Chat? {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE chat SET anyone_sets_topic = coalesce(?, anyone_sets_topic), anyone_mentions_all = coalesce(?, anyone_mentions_all),
                        is_public = coalesce(?, is_public), moderated = coalesce(?, moderated), unlisted = coalesce(?, unlisted),
                        member_limit = CASE WHEN ? IS NULL THEN member_limit ELSE nullif(?, 0) END,
                        join_key = CASE WHEN ? IS NULL THEN join_key ELSE nullif(?, '') END,
                        retention_days = CASE WHEN ? IS NULL THEN retention_days ELSE nullif(?, 0) END
                    WHERE id = ?
                    """,
                arguments: [
                    change.anyoneSetsTopic, change.anyoneMentionsAll, change.isPublic, change.moderated, change.unlisted,
                    change.memberLimit,
                    change.memberLimit, change.key, change.key, change.retentionDays, change.retentionDays, chat.rawValue,
                ])
            return try Rows.chat(db, id: chat)
        }
    }

    public func publicGroups(prefix: String, limit: Int, offset: Int) async throws -> [GroupListing] {
        let pattern = StoredText.likePrefix(prefix.lowercased())
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Rows.chatColumns), (SELECT count(*) FROM member mb WHERE mb.chat_id = c.id) FROM chat c
                    WHERE c.kind = 'group' AND c.is_public AND NOT c.unlisted AND c.handle LIKE ? ESCAPE '\\'
                    ORDER BY c.handle LIMIT ? OFFSET ?
                    """, arguments: [pattern, limit, offset]
            ).map { GroupListing(chat: Rows.chat($0, participants: []), members: $0[Rows.chatColumnCount]) }
        }
    }

    public func joinKey(of chat: ChatID) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT join_key FROM chat WHERE id = ?", arguments: [chat.rawValue])
        }
    }

    public func setBan(_ handle: String, in chat: ChatID, banned: Bool, at time: Date) async throws -> Bool {
        try await pool.write { db in
            if banned {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO ban (chat_id, handle, banned_at) VALUES (?, ?, ?)",
                    arguments: [chat.rawValue, handle, time.storedMilliseconds])
            } else {
                try db.execute(sql: "DELETE FROM ban WHERE chat_id = ? AND handle = ?", arguments: [chat.rawValue, handle])
            }
            return db.changesCount > 0
        }
    }

    public func isBanned(_ handle: String, in chat: ChatID) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM ban WHERE chat_id = ? AND handle = ?)", arguments: [chat.rawValue, handle]) ?? false
        }
    }

    public func bans(of chat: ChatID) async throws -> [String] {
        try await pool.read { db in
            try String.fetchAll(db, sql: "SELECT handle FROM ban WHERE chat_id = ? ORDER BY banned_at, handle", arguments: [chat.rawValue])
        }
    }

    public func recordSeen(_ user: UserID, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET last_seen_at = ? WHERE id = ?", arguments: [time.storedMilliseconds, user.rawValue])
        }
    }

    public func activity(of user: UserID) async throws -> StoredActivity? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT last_login_at, last_seen_at, hide_activity, away FROM user WHERE id = ?", arguments: [user.rawValue]
            ).map {
                StoredActivity(lastSignIn: Rows.date($0[0] as Int64?), lastSeen: Rows.date($0[1] as Int64?), hidden: $0[2], away: $0[3])
            }
        }
    }

    public func setActivityHidden(_ hidden: Bool, of user: UserID) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET hide_activity = ? WHERE id = ?", arguments: [hidden, user.rawValue])
        }
    }

    public func ircPlayback(of user: UserID) async throws -> Int? {
        try await pool.read { db in
            try Int.fetchOne(db, sql: "SELECT irc_playback FROM user WHERE id = ?", arguments: [user.rawValue])
        }
    }

    public func setIRCPlayback(_ limit: Int?, of user: UserID) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET irc_playback = ? WHERE id = ?", arguments: [limit, user.rawValue])
        }
    }

    public func setAway(_ message: String?, of user: UserID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET away = ?1 WHERE id = ?2 AND away IS NOT ?1", arguments: [message, user.rawValue])
            return db.changesCount > 0
        }
    }

    public func away(of users: [UserID]) async throws -> [UserID: String] {
        try await pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT away FROM user WHERE id = ? AND away IS NOT NULL")
            var away: [UserID: String] = [:]
            for user in users { away[user] = try String.fetchOne(statement, arguments: [user.rawValue]) }
            return away
        }
    }

    public func sessions(of user: UserID, now: Date) async throws -> [StoredSession] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT token_hash, client, address, created_at, last_active_at FROM session
                    WHERE user_id = ? AND expires_at > ? ORDER BY created_at, token_hash
                    """, arguments: [user.rawValue, now.storedMilliseconds]
            ).map {
                StoredSession(
                    tokenHash: $0[0], client: $0[1], address: $0[2], createdAt: Rows.date($0[3] as Int64),
                    lastActiveAt: Rows.date($0[4] as Int64))
            }
        }
    }

    public func touchSession(tokenHash: Data, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE session SET last_active_at = ? WHERE token_hash = ?", arguments: [time.storedMilliseconds, tokenHash])
        }
    }
}
