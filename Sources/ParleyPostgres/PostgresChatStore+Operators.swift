public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// The operators' tools: suspended accounts, server-wide bans, the audit log, and the
/// messages of one account for a redaction.
extension PostgresChatStore {
    private static let suspensionSelect = """
        SELECT u.id, u.handle, u.display_name, u.is_bot, s.reason, s.by_handle, s.at, s.with_owner
        FROM suspension s JOIN users u ON u.id = s.user_id
        """

    private static func suspension(_ row: PostgresRow) throws -> Suspension {
        var cells = Cells(row)
        return Suspension(
            user: try PostgresRows.userRef(&cells), reason: try cells.next(), by: try cells.next(), at: try cells.date(),
            withOwner: try cells.next(Int64?.self).map { UserID($0) })
    }

    public func suspend(_ suspensions: [Suspension]) async throws {
        try await transaction { connection in
            for suspension in suspensions {
                _ = try await connection.query(
                    """
                    INSERT INTO suspension (user_id, reason, by_handle, at, with_owner)
                    VALUES (\(suspension.user.id.rawValue), \(suspension.reason), \(suspension.by), \(suspension.at.storedMilliseconds),
                        \(suspension.withOwner?.rawValue))
                    ON CONFLICT (user_id) DO UPDATE SET reason = excluded.reason, by_handle = excluded.by_handle, at = excluded.at,
                        with_owner = excluded.with_owner
                    """, logger: logger
                ).collect()
            }
        }
    }

    public func suspension(of user: UserID) async throws -> Suspension? {
        try await rows("\(unescaped: Self.suspensionSelect) WHERE s.user_id = \(user.rawValue)").first.map(Self.suspension)
    }

    public func suspensions() async throws -> [Suspension] {
        try await rows("\(unescaped: Self.suspensionSelect) ORDER BY s.at DESC").map(Self.suspension)
    }

    public func reinstate(_ user: UserID) async throws -> [UserID] {
        try await rows(
            "DELETE FROM suspension WHERE user_id = \(user.rawValue) OR with_owner = \(user.rawValue) RETURNING user_id"
        ).map { row in
            var cells = Cells(row)
            return UserID(try cells.next(Int64.self))
        }
    }

    private static let banSelect = "SELECT id, kind, pattern, reason, by_handle, created_at, expires_at FROM server_ban"

    private static func ban(_ row: PostgresRow) throws -> ServerBan? {
        var cells = Cells(row)
        let id: Int64 = try cells.next()
        guard let kind = ServerBan.Kind(rawValue: try cells.next(String.self)) else { return nil }
        return ServerBan(
            id: id, kind: kind, pattern: try cells.next(), reason: try cells.next(), by: try cells.next(), createdAt: try cells.date(),
            expiresAt: try cells.optionalDate())
    }

    public func addServerBan(_ ban: ServerBan) async throws -> ServerBan {
        let kept = try await rows(
            """
            INSERT INTO server_ban (kind, pattern, reason, by_handle, created_at, expires_at)
            VALUES (\(ban.kind.rawValue), \(ban.pattern), \(ban.reason), \(ban.by), \(ban.createdAt.storedMilliseconds),
                \(ban.expiresAt?.storedMilliseconds))
            ON CONFLICT (kind, pattern) DO UPDATE SET reason = excluded.reason, by_handle = excluded.by_handle,
                created_at = excluded.created_at, expires_at = excluded.expires_at
            RETURNING id, kind, pattern, reason, by_handle, created_at, expires_at
            """)
        guard let row = kept.first, let made = try Self.ban(row) else { throw ParleyError(.internalError, "a ban just made is not there") }
        return made
    }

    public func serverBans() async throws -> [ServerBan] {
        try await rows("\(unescaped: Self.banSelect) ORDER BY id LIMIT \(ServerBan.maxBans)").compactMap(Self.ban)
    }

    public func removeServerBan(_ id: Int64) async throws -> ServerBan? {
        try await rows(
            "DELETE FROM server_ban WHERE id = \(id) RETURNING id, kind, pattern, reason, by_handle, created_at, expires_at"
        ).first.flatMap(Self.ban)
    }

    public func appendAudit(_ entry: AuditEntry) async throws {
        try await rows(
            """
            INSERT INTO audit (at, actor, action, target, chat_id, place, detail, reason)
            VALUES (\(entry.at.storedMilliseconds), \(entry.actor), \(entry.action.rawValue), \(entry.target), \(entry.chatID?.rawValue),
                \(entry.place), \(entry.detail), \(entry.reason))
            """)
    }

    public func audit(chat: ChatID?, actor: String?, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await rows(
            """
            SELECT id, at, actor, action, target, chat_id, place, detail, reason FROM audit
            WHERE id < \(before ?? Int64.max) AND (\(chat?.rawValue)::bigint IS NULL OR chat_id = \(chat?.rawValue))
                AND (\(actor)::text IS NULL OR lower(actor) = lower(\(actor)))
            ORDER BY id DESC LIMIT \(limit)
            """
        ).compactMap { row in
            var cells = Cells(row)
            let id: Int64 = try cells.next()
            let at = try cells.date()
            let actor: String = try cells.next()
            guard let action = AuditAction(rawValue: try cells.next(String.self)) else { return nil }
            return AuditEntry(
                id: id, at: at, actor: actor, action: action, target: try cells.next(),
                chatID: try cells.next(Int64?.self).map { ChatID($0) },
                place: try cells.next(), detail: try cells.next(), reason: try cells.next())
        }
    }

    public func sentMessages(by sender: UserID, from: Date?, to: Date?, after: Int64, limit: Int) async throws
        -> [(chat: ChatID, seq: Int64, id: Int64, hasMedia: Bool)]
    {
        try await rows(
            """
            SELECT chat_id, seq, id, media IS NOT NULL FROM message
            WHERE sender_id = \(sender.rawValue) AND id > \(after) AND sent_at >= \(from?.storedMilliseconds ?? Int64.min)
                AND sent_at <= \(to?.storedMilliseconds ?? Int64.max) AND deleted_at IS NULL AND kind <> 'system'
            ORDER BY id LIMIT \(limit)
            """
        ).map { row in
            var cells = Cells(row)
            return (ChatID(try cells.next(Int64.self)), try cells.next(), try cells.next(), try cells.next())
        }
    }
}
