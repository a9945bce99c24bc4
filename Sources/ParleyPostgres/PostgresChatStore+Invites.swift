public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

// Media

/// Invite links to groups.
extension PostgresChatStore {
    public func createInvite(_ invite: Invite, at time: Date) async throws {
        try await rows(
            """
            INSERT INTO invite (code, chat_id, created_by, created_at, expires_at, uses_left, for_user)
            VALUES (\(invite.code), \(invite.chatID.rawValue), \(invite.createdBy.rawValue), \(time.storedMilliseconds),
                    \(invite.expiresAt?.storedMilliseconds), \(invite.usesLeft.map(Int64.init)), \(invite.forUser?.rawValue))
            """)
    }

    public func invite(code: String) async throws -> Invite? {
        guard
            let row = try await rows(
                "SELECT code, chat_id, created_by, expires_at, uses_left, revoked, for_user FROM invite WHERE code = \(code)"
            ).first
        else { return nil }
        return try Self.invite(from: row)
    }

    public func personalInvites(for user: UserID, limit: Int) async throws -> [Invite] {
        try await rows(
            """
            SELECT code, chat_id, created_by, expires_at, uses_left, revoked, for_user FROM invite
            WHERE for_user = \(user.rawValue) AND NOT revoked AND (uses_left IS NULL OR uses_left > 0)
            ORDER BY created_at DESC LIMIT \(Int64(limit))
            """
        ).map { try Self.invite(from: $0) }
    }

    public func personalInvite(to chat: ChatID, for user: UserID) async throws -> Invite? {
        guard
            let row = try await rows(
                """
                SELECT code, chat_id, created_by, expires_at, uses_left, revoked, for_user FROM invite
                WHERE for_user = \(user.rawValue) AND chat_id = \(chat.rawValue) AND NOT revoked AND (uses_left IS NULL OR uses_left > 0)
                ORDER BY created_at DESC LIMIT 1
                """
            ).first
        else { return nil }
        return try Self.invite(from: row)
    }

    static func invite(from row: PostgresRow) throws -> Invite {
        var cells = Cells(row)
        return Invite(
            code: try cells.next(), chatID: ChatID(try cells.next(Int64.self)), createdBy: UserID(try cells.next(Int64.self)),
            expiresAt: try cells.optionalDate(), usesLeft: try cells.next(Int64?.self).map { Int($0) }, revoked: try cells.next(),
            forUser: try cells.next(Int64?.self).map { UserID($0) })
    }

    public func useInvite(code: String, user: UserID, at time: Date) async throws -> Bool {
        try await transaction { connection in
            guard
                let chat = try await connection.query("SELECT chat_id FROM invite WHERE code = \(code)", logger: logger).collect().first?
                    .decode(Int64.self)
            else { throw ParleyError(.invalidInvite, "this invite code is not valid") }
            guard try await Self.insertMember(connection, user: user, chat: ChatID(chat), role: .member, at: time, logger: logger)
            else { return false }
            let used = try await connection.query(
                """
                UPDATE invite SET uses_left = uses_left - 1
                WHERE code = \(code) AND NOT revoked AND (uses_left IS NULL OR uses_left > 0) RETURNING 1
                """, logger: logger
            ).collect()
            // Rolls the new member back with the transaction.
            guard !used.isEmpty else { throw ParleyError(.inviteUsedUp, "this invite has been used up") }
            return true
        }
    }

    public func revokeInvite(code: String) async throws {
        try await rows("UPDATE invite SET revoked = true WHERE code = \(code)")
    }
}
