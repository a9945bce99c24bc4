public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// `GroupsStore`: a group's own settings: topic, rules, key, bans, and the directory of public groups.
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
}
