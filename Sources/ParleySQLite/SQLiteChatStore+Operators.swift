public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// The operators' tools: suspended accounts, server-wide bans, the audit log, and the
/// messages of one account for a redaction.
extension SQLiteChatStore {
    private static let suspensionSelect = """
        SELECT u.id, u.handle, u.display_name, u.is_bot, s.reason, s.by_handle, s.at, s.with_owner
        FROM suspension s JOIN user u ON u.id = s.user_id
        """

    private static func suspension(_ row: Row) -> Suspension {
        Suspension(
            user: UserRef(id: UserID(row[0] as Int64), handle: row[1], displayName: row[2], isBot: row[3]), reason: row[4], by: row[5],
            at: Rows.date(row[6] as Int64), withOwner: (row[7] as Int64?).map { UserID($0) })
    }

    public func suspend(_ suspensions: [Suspension]) async throws {
        try await pool.write { db in
            for suspension in suspensions {
                try db.execute(
                    sql: "INSERT OR REPLACE INTO suspension (user_id, reason, by_handle, at, with_owner) VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        suspension.user.id.rawValue, suspension.reason, suspension.by, suspension.at.storedMilliseconds,
                        suspension.withOwner?.rawValue,
                    ])
            }
        }
    }

    public func suspension(of user: UserID) async throws -> Suspension? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "\(Self.suspensionSelect) WHERE s.user_id = ?", arguments: [user.rawValue]).map(Self.suspension)
        }
    }

    public func suspensions() async throws -> [Suspension] {
        try await pool.read { db in try Row.fetchAll(db, sql: "\(Self.suspensionSelect) ORDER BY s.at DESC").map(Self.suspension) }
    }

    public func reinstate(_ user: UserID) async throws -> [UserID] {
        try await pool.write { db in
            let freed = try Int64.fetchAll(
                db, sql: "SELECT user_id FROM suspension WHERE user_id = ?1 OR with_owner = ?1", arguments: [user.rawValue])
            try db.execute(sql: "DELETE FROM suspension WHERE user_id = ?1 OR with_owner = ?1", arguments: [user.rawValue])
            return freed.map { UserID($0) }
        }
    }

    private static let banSelect = "SELECT id, kind, pattern, reason, by_handle, created_at, expires_at FROM server_ban"

    private static func ban(_ row: Row) -> ServerBan? {
        guard let kind = ServerBan.Kind(rawValue: row[1]) else { return nil }
        return ServerBan(
            id: row[0], kind: kind, pattern: row[2], reason: row[3], by: row[4], createdAt: Rows.date(row[5] as Int64),
            expiresAt: Rows.date(row[6] as Int64?))
    }

    public func addServerBan(_ ban: ServerBan) async throws -> ServerBan {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO server_ban (kind, pattern, reason, by_handle, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (kind, pattern) DO UPDATE SET reason = excluded.reason, by_handle = excluded.by_handle,
                        created_at = excluded.created_at, expires_at = excluded.expires_at
                    """,
                arguments: [
                    ban.kind.rawValue, ban.pattern, ban.reason, ban.by, ban.createdAt.storedMilliseconds, ban.expiresAt?.storedMilliseconds,
                ])
            guard
                let row = try Row.fetchOne(
                    db, sql: "\(Self.banSelect) WHERE kind = ? AND pattern = ?", arguments: [ban.kind.rawValue, ban.pattern]),
                let kept = Self.ban(row)
            else { throw ParleyError(.internalError, "a ban just made is not there") }
            return kept
        }
    }

    public func serverBans() async throws -> [ServerBan] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "\(Self.banSelect) ORDER BY id LIMIT ?", arguments: [ServerBan.maxBans]).compactMap(Self.ban)
        }
    }

    public func removeServerBan(_ id: Int64) async throws -> ServerBan? {
        try await pool.write { db in
            guard let row = try Row.fetchOne(db, sql: "\(Self.banSelect) WHERE id = ?", arguments: [id]) else { return nil }
            try db.execute(sql: "DELETE FROM server_ban WHERE id = ?", arguments: [id])
            return Self.ban(row)
        }
    }

    public func appendAudit(_ entry: AuditEntry) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO audit (at, actor, action, target, chat_id, place, detail, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    entry.at.storedMilliseconds, entry.actor, entry.action.rawValue, entry.target, entry.chatID?.rawValue, entry.place,
                    entry.detail, entry.reason,
                ])
        }
    }

    public func audit(chat: ChatID?, actor: String?, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await pool.read { db in
            var conditions = ["id < ?"]
            var arguments: StatementArguments = [before ?? Int64.max]
            if let chat {
                conditions.append("chat_id = ?")
                arguments += [chat.rawValue]
            }
            if let actor {
                conditions.append("actor = ? COLLATE NOCASE")
                arguments += [actor]
            }
            arguments += [limit]
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT id, at, actor, action, target, chat_id, place, detail, reason FROM audit
                    WHERE \(conditions.joined(separator: " AND ")) ORDER BY id DESC LIMIT ?
                    """, arguments: arguments
            ).compactMap { row in
                guard let action = AuditAction(rawValue: row[3]) else { return nil }
                return AuditEntry(
                    id: row[0], at: Rows.date(row[1] as Int64), actor: row[2], action: action, target: row[4],
                    chatID: (row[5] as Int64?).map { ChatID($0) }, place: row[6], detail: row[7], reason: row[8])
            }
        }
    }

    public func sentMessages(by sender: UserID, from: Date?, to: Date?, after: Int64, limit: Int) async throws
        -> [(chat: ChatID, seq: Int64, id: Int64, hasMedia: Bool)]
    {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT chat_id, seq, id, media IS NOT NULL FROM message
                    WHERE sender_id = ? AND id > ? AND sent_at >= ? AND sent_at <= ? AND deleted_at IS NULL AND kind != 'system'
                    ORDER BY id LIMIT ?
                    """,
                arguments: [
                    sender.rawValue, after, from?.storedMilliseconds ?? Int64.min, to?.storedMilliseconds ?? Int64.max, limit,
                ]
            ).map { row in (ChatID(row[0] as Int64), row[1], row[2], row[3]) }
        }
    }
}
