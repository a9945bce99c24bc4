public import Foundation
import GRDB
public import ParleyCore

extension SQLiteChatStore {
    public func createInvite(_ invite: Invite, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO invite (code, chat_id, created_by, created_at, expires_at, uses_left)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    invite.code, invite.chatID.rawValue, invite.createdBy.rawValue, time.storedMilliseconds,
                    invite.expiresAt?.storedMilliseconds, invite.usesLeft,
                ])
        }
    }

    public func invite(code: String) async throws -> Invite? {
        try await pool.read { db in try Self.invite(db, code: code) }
    }

    static func invite(_ db: Database, code: String) throws -> Invite? {
        try Row.fetchOne(
            db, sql: "SELECT code, chat_id, created_by, expires_at, uses_left, revoked FROM invite WHERE code = ?",
            arguments: [code]
        ).map {
            Invite(
                code: $0[0], chatID: ChatID($0[1]), createdBy: UserID($0[2]), expiresAt: Rows.date($0[3] as Int64?),
                usesLeft: $0[4], revoked: $0[5])
        }
    }

    public func redeemInvite(code: String, user: UserID, now: Date) async throws -> InviteRedemption {
        try await pool.write { db in
            guard let invite = try Self.invite(db, code: code) else { return .unknown }
            if invite.revoked { return .revoked }
            if let expiresAt = invite.expiresAt, expiresAt <= now { return .expired }
            if let usesLeft = invite.usesLeft, usesLeft <= 0 { return .usedUp }
            guard try Self.insertMember(db, user: user, chat: invite.chatID, role: .member, at: now) else {
                return .joined(invite.chatID)
            }
            if invite.usesLeft != nil {
                try db.execute(sql: "UPDATE invite SET uses_left = uses_left - 1 WHERE code = ?", arguments: [code])
            }
            return .joined(invite.chatID)
        }
    }

    public func revokeInvite(code: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE invite SET revoked = 1 WHERE code = ?", arguments: [code])
        }
    }
}
