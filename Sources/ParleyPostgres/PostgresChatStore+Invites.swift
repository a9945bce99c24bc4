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
            INSERT INTO invite (code, chat_id, created_by, created_at, expires_at, uses_left)
            VALUES (\(invite.code), \(invite.chatID.rawValue), \(invite.createdBy.rawValue), \(time.storedMilliseconds),
                    \(invite.expiresAt?.storedMilliseconds), \(invite.usesLeft.map(Int64.init)))
            """)
    }

    public func invite(code: String) async throws -> Invite? {
        guard
            let row = try await rows(
                "SELECT code, chat_id, created_by, expires_at, uses_left, revoked FROM invite WHERE code = \(code)"
            ).first
        else { return nil }
        var cells = Cells(row)
        return Invite(
            code: try cells.next(), chatID: ChatID(try cells.next(Int64.self)), createdBy: UserID(try cells.next(Int64.self)),
            expiresAt: try cells.optionalDate(), usesLeft: try cells.next(Int64?.self).map { Int($0) }, revoked: try cells.next())
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
