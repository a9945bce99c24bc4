public import Foundation
public import ParleyCore
public import ParleyStore
import PostgresNIO

// Media
extension PostgresChatStore {
    public func recordMedia(_ media: MediaInfo, uploader: UserID, at time: Date) async throws {
        let now = time.storedMilliseconds
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO media (id, kind, type, size, width, height, created_at)
                VALUES (\(media.id), \(media.kind.rawValue), \(media.type), \(media.size), \(media.width.map(Int64.init)),
                        \(media.height.map(Int64.init)), \(now))
                ON CONFLICT (id) DO NOTHING
                """, logger: logger)
            try await connection.query(
                """
                INSERT INTO media_upload (media_id, user_id, uploaded_at) VALUES (\(media.id), \(uploader.rawValue), \(now))
                ON CONFLICT (media_id, user_id) DO UPDATE SET uploaded_at = excluded.uploaded_at
                """, logger: logger)
        }
    }

    public func media(id: String) async throws -> MediaInfo? {
        guard let row = try await rows("SELECT id, kind, type, size, width, height FROM media WHERE id = \(id)").first else { return nil }
        var cells = Cells(row)
        return MediaInfo(
            id: try cells.next(), kind: MediaKind(rawValue: try cells.next()) ?? .image, type: try cells.next(), size: try cells.next(),
            width: try cells.next(Int64?.self).map { Int($0) }, height: try cells.next(Int64?.self).map { Int($0) })
    }

    public func isAvatar(media id: String) async throws -> Bool {
        try await !rows("SELECT 1 FROM users WHERE avatar = \(id) LIMIT 1").isEmpty
    }

    public func newestMessages(carrying media: String, in chats: [ChatID]) async throws -> [ChatID: Int64] {
        guard !chats.isEmpty else { return [:] }
        let found = try await rows(
            """
            SELECT chat_id, max(seq) FROM message
            WHERE substr(media, 1, 64) = \(media) AND media IS NOT NULL AND chat_id = ANY(\(chats.map(\.rawValue)))
            GROUP BY chat_id
            """)
        var newest: [ChatID: Int64] = [:]
        for row in found {
            let (chat, seq) = try row.decode((Int64, Int64).self)
            newest[ChatID(chat)] = seq
        }
        return newest
    }

    public func hasUploaded(media id: String, user: UserID) async throws -> Bool {
        try await !rows("SELECT 1 FROM media_upload WHERE media_id = \(id) AND user_id = \(user.rawValue)").isEmpty
    }

    public func setAvatar(_ media: String?, of user: UserID) async throws -> User {
        try await rows("UPDATE users SET avatar = \(media) WHERE id = \(user.rawValue)")
        guard let updated = try await self.user(id: user) else { throw ParleyError(.unknownUser, "no such user") }
        return updated
    }

    public func forgetUnusedMedia(recordedBefore time: Date) async throws -> [String] {
        try await rows(
            """
            DELETE FROM media WHERE created_at < \(time.storedMilliseconds)
                AND NOT EXISTS (SELECT 1 FROM message WHERE substr(message.media, 1, 64) = media.id AND message.media IS NOT NULL)
                AND NOT EXISTS (SELECT 1 FROM users WHERE avatar = media.id)
            RETURNING id
            """
        ).map { try $0.decode(String.self) }
    }
}

// External identities and phone sign-in
extension PostgresChatStore {
    public func user(issuer: String, subject: String) async throws -> User? {
        try await oneUser("u.id = (SELECT user_id FROM identity WHERE issuer = \(issuer) AND subject = \(subject))")
    }

    public func linkIdentity(issuer: String, subject: String, to user: UserID, at time: Date) async throws {
        try await rows(
            """
            INSERT INTO identity (issuer, subject, user_id, linked_at) VALUES (\(issuer), \(subject), \(user.rawValue), \(time.storedMilliseconds))
            ON CONFLICT DO NOTHING
            """)
    }

    public func user(phone: String) async throws -> User? {
        try await oneUser("u.phone = \(phone)")
    }

    public func codeRequests(phone: String, address: String, since time: Date) async throws -> CodeRequestCounts {
        let since = time.storedMilliseconds
        guard
            let row = try await rows(
                """
                SELECT (SELECT count(*) FROM code_request WHERE phone = \(phone) AND requested_at >= \(since)),
                       (SELECT max(requested_at) FROM code_request WHERE phone = $1 AND requested_at >= $2),
                       (SELECT count(*) FROM code_request WHERE address = \(address) AND requested_at >= $2)
                """
            ).first
        else { return CodeRequestCounts(forPhone: 0, fromAddress: 0, lastForPhone: nil) }
        var cells = Cells(row)
        let forPhone = try cells.next(Int64.self)
        let last = try cells.optionalDate()
        return CodeRequestCounts(forPhone: Int(forPhone), fromAddress: Int(try cells.next(Int64.self)), lastForPhone: last)
    }

    public func saveCode(phone: String, codeHash: Data, expiresAt: Date, attempts: Int, address: String, at time: Date) async throws {
        let now = time.storedMilliseconds
        try await transaction { connection in
            try await connection.query(
                """
                INSERT INTO phone_code (phone, code_hash, expires_at, attempts_left)
                VALUES (\(phone), \(codeHash), \(expiresAt.storedMilliseconds), \(Int64(attempts)))
                ON CONFLICT (phone) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at,
                    attempts_left = excluded.attempts_left
                """, logger: logger)
            try await connection.query(
                "INSERT INTO code_request (phone, address, requested_at) VALUES (\(phone), \(address), \(now))", logger: logger)
            // Requests older than a day count for nothing.
            try await connection.query("DELETE FROM code_request WHERE requested_at < \(now &- 24 * 3_600_000)", logger: logger)
        }
    }

    public func checkCode(phone: String, codeHash: Data, now: Date) async throws -> CodeCheck {
        try await transaction { connection in
            guard
                let row = try await connection.query(
                    "SELECT code_hash, expires_at, attempts_left FROM phone_code WHERE phone = \(phone) FOR UPDATE", logger: logger
                ).collect().first
            else { return .missing }
            let (stored, expiresAt, left) = try row.decode((Data, Int64, Int64).self)
            if expiresAt <= now.storedMilliseconds {
                try await connection.query("DELETE FROM phone_code WHERE phone = \(phone)", logger: logger)
                return .expired
            }
            if left <= 0 { return .exhausted }
            if stored == codeHash {
                try await connection.query("DELETE FROM phone_code WHERE phone = \(phone)", logger: logger)
                return .valid
            }
            try await connection.query("UPDATE phone_code SET attempts_left = attempts_left - 1 WHERE phone = \(phone)", logger: logger)
            return .wrong(attemptsLeft: Int(left - 1))
        }
    }
}

// Invites and sign-up codes
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

    public func createSignupCode(_ code: SignupCode) async throws {
        try await rows(
            """
            INSERT INTO signup_code (code, created_by, created_at, expires_at, uses_left)
            VALUES (\(code.code), \(code.createdBy?.rawValue), \(code.createdAt.storedMilliseconds), \(code.expiresAt?.storedMilliseconds),
                    \(code.usesLeft.map(Int64.init)))
            """)
    }

    private static let signupColumns = "code, created_by, created_at, expires_at, uses_left, revoked"

    private static func signupCode(_ row: PostgresRow) throws -> SignupCode {
        var cells = Cells(row)
        return SignupCode(
            code: try cells.next(), createdBy: try cells.next(Int64?.self).map { UserID($0) }, createdAt: try cells.date(),
            expiresAt: try cells.optionalDate(), usesLeft: try cells.next(Int64?.self).map { Int($0) }, revoked: try cells.next())
    }

    public func signupCode(_ code: String) async throws -> SignupCode? {
        try await rows("SELECT \(unescaped: Self.signupColumns) FROM signup_code WHERE code = \(code)").first.map(Self.signupCode)
    }

    public func signupCodes(usableAt now: Date) async throws -> [SignupCode] {
        try await rows(
            """
            SELECT \(unescaped: Self.signupColumns) FROM signup_code
            WHERE NOT revoked AND (expires_at IS NULL OR expires_at > \(now.storedMilliseconds)) AND (uses_left IS NULL OR uses_left > 0)
            ORDER BY created_at DESC, code
            """
        ).map(Self.signupCode)
    }

    public func revokeSignupCode(_ code: String) async throws {
        try await rows("UPDATE signup_code SET revoked = true WHERE code = \(code)")
    }
}
