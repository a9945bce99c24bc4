public import Foundation
import GRDB
public import ParleyCore
import ParleyStore

/// `InvitesStore`: invite links and personal invitations to groups.
extension SQLiteChatStore {
    public func createInvite(_ invite: Invite, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO invite (code, chat_id, created_by, created_at, expires_at, uses_left, for_user)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    invite.code, invite.chatID.rawValue, invite.createdBy.rawValue, time.storedMilliseconds,
                    invite.expiresAt?.storedMilliseconds, invite.usesLeft, invite.forUser?.rawValue,
                ])
        }
    }

    public func invite(code: String) async throws -> Invite? {
        try await pool.read { db in try Self.invite(db, code: code) }
    }

    static let inviteColumns = "code, chat_id, created_by, expires_at, uses_left, revoked, for_user"

    static func invite(_ db: Database, code: String) throws -> Invite? {
        try Row.fetchOne(db, sql: "SELECT \(inviteColumns) FROM invite WHERE code = ?", arguments: [code]).map(Self.invite(from:))
    }

    static func invite(from row: Row) -> Invite {
        Invite(
            code: row[0], chatID: ChatID(row[1]), createdBy: UserID(row[2]), expiresAt: Rows.date(row[3] as Int64?),
            usesLeft: row[4], revoked: row[5], forUser: (row[6] as Int64?).map { UserID($0) })
    }

    public func personalInvites(for user: UserID, limit: Int) async throws -> [Invite] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.inviteColumns) FROM invite
                    WHERE for_user = ? AND revoked = 0 AND (uses_left IS NULL OR uses_left > 0)
                    ORDER BY created_at DESC LIMIT ?
                    """,
                arguments: [user.rawValue, limit]
            ).map(Self.invite(from:))
        }
    }

    public func personalInvite(to chat: ChatID, for user: UserID) async throws -> Invite? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT \(Self.inviteColumns) FROM invite
                    WHERE for_user = ? AND chat_id = ? AND revoked = 0 AND (uses_left IS NULL OR uses_left > 0)
                    ORDER BY created_at DESC LIMIT 1
                    """,
                arguments: [user.rawValue, chat.rawValue]
            ).map(Self.invite(from:))
        }
    }

    public func useInvite(code: String, user: UserID, at time: Date) async throws -> Bool {
        try await pool.write { db in
            guard let invite = try Self.invite(db, code: code) else { throw ParleyError(.invalidInvite, "this invite code is not valid") }
            guard try Self.insertMember(db, user: user, chat: invite.chatID, role: .member, at: time) else { return false }
            try db.execute(
                sql: "UPDATE invite SET uses_left = uses_left - 1 WHERE code = ? AND revoked = 0 AND (uses_left IS NULL OR uses_left > 0)",
                arguments: [code])
            // Rolls the new member back with the transaction.
            guard db.changesCount == 1 else { throw ParleyError(.inviteUsedUp, "this invite has been used up") }
            return true
        }
    }

    public func revokeInvite(code: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE invite SET revoked = 1 WHERE code = ?", arguments: [code])
        }
    }
}
