public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `GroupsStore`: a group's own settings: topic, rules, key, bans, and the directory of public groups.
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
}
