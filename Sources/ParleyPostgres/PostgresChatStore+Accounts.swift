public import Foundation
public import ParleyCore
public import ParleyStore
import PostgresNIO

/// `AccountsStore`: accounts and their sessions: sign-up, credentials, profiles, the directory of people.
extension PostgresChatStore {
    public func createUser(_ user: NewUser) async throws -> User {
        do {
            return try await transaction { connection in
                if let code = user.signupCode {
                    let used = try await connection.query(
                        """
                        UPDATE signup_code SET uses_left = uses_left - 1
                        WHERE code = \(code) AND NOT revoked AND (uses_left IS NULL OR uses_left > 0) RETURNING code
                        """, logger: logger
                    ).collect()
                    guard !used.isEmpty else { throw ParleyError(.inviteUsedUp, "this sign-up code has been used up") }
                }
                let rows = try await connection.query(
                    """
                    INSERT INTO users (handle, email, display_name, password_hash, is_bot, created_at, phone, owner_id, is_guest)
                    VALUES (\(user.handle), \(user.email), \(user.displayName), \(user.passwordHash), \(user.isBot),
                            \(user.createdAt.storedMilliseconds), \(user.phone), \(user.owner?.rawValue), \(user.isGuest))
                    RETURNING \(unescaped: PostgresRows.userColumns.replacingOccurrences(of: "u.", with: "users."))
                    """, logger: logger
                ).collect()
                guard let row = rows.first else { throw ParleyError(.internalError, "the new account vanished") }
                return try PostgresRows.user(row)
            }
        } catch {
            throw Self.uniqueViolation(
                error,
                [
                    "users_email": ParleyError(.emailTaken, "an account with this email already exists"),
                    "users_handle": ParleyError(.handleTaken, "the handle @\(user.handle) is taken"),
                    "users_phone": ParleyError(.invalidPhone, "an account with this phone number already exists"),
                ])
        }
    }

    /// One user by a condition on `u`.
    func oneUser(_ condition: PostgresQuery) async throws -> User? {
        var query = PostgresQuery(unsafeSQL: "SELECT \(PostgresRows.userColumns) FROM users u WHERE ", binds: condition.binds)
        query.sql += condition.sql
        return try await rows(query).first.map(PostgresRows.user)
    }

    public func user(id: UserID) async throws -> User? {
        try await oneUser("u.id = \(id.rawValue)")
    }

    public func user(handle: String) async throws -> User? {
        try await oneUser("lower(u.handle) = lower(\(handle))")
    }

    public func users(ids: [UserID]) async throws -> [User] {
        let found = try await rows(
            "SELECT \(unescaped: PostgresRows.userColumns) FROM users u WHERE u.id = ANY(\(ids.map(\.rawValue)))"
        ).map(PostgresRows.user)
        let byID = Dictionary(found.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }

    public func credentials(for login: Login) async throws -> (user: User, passwordHash: String?)? {
        let condition: PostgresQuery =
            switch login {
            case .email(let email): "lower(u.email) = lower(\(email))"
            case .handle(let handle): "lower(u.handle) = lower(\(handle))"
            }
        var query = PostgresQuery(
            unsafeSQL: "SELECT \(PostgresRows.userColumns), u.password_hash FROM users u WHERE ", binds: condition.binds)
        query.sql += condition.sql
        guard let row = try await rows(query).first else { return nil }
        var cells = Cells(row)
        let user = try PostgresRows.user(&cells)
        return (user, try cells.next(String?.self))
    }

    public func passwordHash(of user: UserID) async throws -> String? {
        try await rows("SELECT password_hash FROM users WHERE id = \(user.rawValue)").first?.decode(String?.self) ?? nil
    }

    public func setPasswordHash(_ hash: String, of user: UserID) async throws {
        try await rows("UPDATE users SET password_hash = \(hash) WHERE id = \(user.rawValue)")
    }

    public func setDisplayName(_ name: String, of user: UserID) async throws -> User {
        try await rows("UPDATE users SET display_name = \(name) WHERE id = \(user.rawValue)")
        guard let updated = try await self.user(id: user) else { throw ParleyError(.unknownUser, "no such user") }
        return updated
    }

    public func recordLogin(of user: UserID, at time: Date) async throws {
        let at = time.storedMilliseconds
        try await rows("UPDATE users SET last_login_at = \(at), last_seen_at = \(at) WHERE id = \(user.rawValue)")
    }

    public func handleExists(_ handle: String) async throws -> Bool {
        try await !rows("SELECT 1 FROM users WHERE lower(handle) = lower(\(handle))").isEmpty
    }

    public func searchUsers(prefix: String, limit: Int, offset: Int) async throws -> [User] {
        let pattern = StoredText.likePrefix(prefix)
        return try await rows(
            """
            SELECT \(unescaped: PostgresRows.userColumns) FROM users u
            WHERE u.handle ILIKE \(pattern) ESCAPE '\\' OR u.display_name ILIKE $1 ESCAPE '\\'
               OR u.display_name ILIKE '% ' || $1 ESCAPE '\\' OR lower(u.email) = lower(\(prefix))
            ORDER BY lower(u.handle) LIMIT \(limit) OFFSET \(offset)
            """
        ).map(PostgresRows.user)
    }

    public func createSession(tokenHash: Data, user: UserID, expiresAt: Date, client: String, address: String, at time: Date) async throws {
        try await rows(
            """
            INSERT INTO session (token_hash, user_id, expires_at, client, address, created_at, last_active_at)
            VALUES (\(tokenHash), \(user.rawValue), \(expiresAt.storedMilliseconds), \(client), \(address), \(time.storedMilliseconds),
                    \(time.storedMilliseconds))
            """
        )
    }

    public func sessionUser(tokenHash: Data, now: Date) async throws -> (user: UserID, expiresAt: Date)? {
        guard
            let row = try await rows(
                "SELECT user_id, expires_at FROM session WHERE token_hash = \(tokenHash) AND expires_at > \(now.storedMilliseconds)"
            ).first
        else { return nil }
        var cells = Cells(row)
        return (UserID(try cells.next(Int64.self)), try cells.date())
    }

    public func purgeExpired(now: Date) async throws -> Int {
        let sessions = try await rows("DELETE FROM session WHERE expires_at <= \(now.storedMilliseconds) RETURNING 1")
        let codes = try await rows("DELETE FROM phone_code WHERE expires_at <= \(now.storedMilliseconds) RETURNING 1")
        return sessions.count + codes.count
    }

    public func deleteSession(tokenHash: Data) async throws {
        try await rows("DELETE FROM session WHERE token_hash = \(tokenHash)")
    }

    public func deleteSessions(of user: UserID, except tokenHash: Data?) async throws {
        try await rows(
            "DELETE FROM session WHERE user_id = \(user.rawValue) AND token_hash IS DISTINCT FROM \(tokenHash)::bytea")
    }
}

/// Sessions: one per signed-in connection or token, kept by the hash of its token.
extension PostgresChatStore {
    public func sessions(of user: UserID, now: Date) async throws -> [StoredSession] {
        try await rows(
            """
            SELECT token_hash, client, address, created_at, last_active_at FROM session
            WHERE user_id = \(user.rawValue) AND expires_at > \(now.storedMilliseconds) ORDER BY created_at, token_hash
            """
        ).map { row in
            var cells = Cells(row)
            let hash: ByteBuffer = try cells.next()
            return StoredSession(
                tokenHash: Data(hash.readableBytesView), client: try cells.next(), address: try cells.next(), createdAt: try cells.date(),
                lastActiveAt: try cells.date())
        }
    }

    public func touchSession(tokenHash: Data, at time: Date) async throws {
        try await rows("UPDATE session SET last_active_at = \(time.storedMilliseconds) WHERE token_hash = \(tokenHash)")
    }
}
