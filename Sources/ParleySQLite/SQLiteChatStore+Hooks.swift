public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// Incoming webhooks.
extension SQLiteChatStore {
    public func createHook(
        chat: ChatID, name: String, tokenHash: Data, signingSecret: String?, by user: UserID, at time: Date, url: String?, trigger: String?
    ) async throws -> Hook {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO hook (chat_id, name, token_hash, signing_secret, created_by, created_at, url, trigger)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [chat.rawValue, name, tokenHash, signingSecret, user.rawValue, time.storedMilliseconds, url, trigger])
            let id = db.lastInsertedRowID
            guard let row = try Row.fetchOne(db, sql: "\(Self.hookSelect) WHERE h.id = ?", arguments: [id]) else {
                throw ParleyError(.internalError, "a hook just made is not there")
            }
            return Self.hook(row)
        }
    }

    static let hookSelect = """
        SELECT h.id, h.chat_id, h.name, h.created_at, h.signing_secret, h.last_used_at, u.id, u.handle, u.display_name, u.is_bot,
            h.url, h.trigger, h.last_error, h.last_error_at
        FROM hook h JOIN user u ON u.id = h.created_by
        """

    static func hook(_ row: Row) -> Hook {
        Hook(
            id: row[0], chatID: ChatID(row[1] as Int64), name: row[2],
            createdBy: UserRef(id: UserID(row[6] as Int64), handle: row[7], displayName: row[8], isBot: row[9]),
            createdAt: Rows.date(row[3] as Int64), signed: (row[4] as String?) != nil, lastUsedAt: Rows.date(row[5] as Int64?),
            url: row[10], trigger: row[11], lastError: row[12], lastErrorAt: Rows.date(row[13] as Int64?))
    }

    public func outgoingHooks(of chat: ChatID) async throws -> [(hook: Hook, signingSecret: String)] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "\(Self.hookSelect) WHERE h.chat_id = ? AND h.url IS NOT NULL ORDER BY h.id", arguments: [chat.rawValue]
            )
            .map { (Self.hook($0), $0[4] as String? ?? "") }
        }
    }

    public func hookFailed(_ id: Int64, error: String, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE hook SET last_error = ?, last_error_at = ? WHERE id = ?", arguments: [error, time.storedMilliseconds, id])
        }
    }

    public func hooks(of chat: ChatID) async throws -> [Hook] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "\(Self.hookSelect) WHERE h.chat_id = ? ORDER BY h.id", arguments: [chat.rawValue]).map(Self.hook)
        }
    }

    public func hook(tokenHash: Data) async throws -> (hook: Hook, signingSecret: String?)? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "\(Self.hookSelect) WHERE h.token_hash = ? AND h.url IS NULL", arguments: [tokenHash]).map {
                (Self.hook($0), $0[4])
            }
        }
    }

    public func deleteHook(_ id: Int64, in chat: ChatID) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM hook WHERE id = ? AND chat_id = ?", arguments: [id, chat.rawValue])
            return db.changesCount > 0
        }
    }

    public func hookUsed(_ id: Int64, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE hook SET last_used_at = ? WHERE id = ?", arguments: [time.storedMilliseconds, id])
        }
    }
}
