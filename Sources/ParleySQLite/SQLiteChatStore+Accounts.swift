public import Foundation
import GRDB
public import ParleyCore
public import ParleyStore

/// `AccountsStore`: accounts and their sessions: sign-up, credentials, profiles, the directory of people.
extension SQLiteChatStore {
    public func createUser(_ user: NewUser) async throws -> User {
        do {
            return try await pool.write { db in
                if let code = user.signupCode {
                    try Self.useSignupCode(db, code)
                }
                try db.execute(
                    sql: """
                        INSERT INTO user (handle, email, display_name, password_hash, is_bot, created_at, phone, owner_id, is_guest)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        user.handle, user.email, user.displayName, user.passwordHash, user.isBot,
                        user.createdAt.storedMilliseconds, user.phone, user.owner?.rawValue, user.isGuest,
                    ])
                let id = UserID(db.lastInsertedRowID)
                let owner = try user.owner.flatMap {
                    try String.fetchOne(db, sql: "SELECT handle FROM user WHERE id = ?", arguments: [$0.rawValue])
                }
                return User(
                    id: id, handle: user.handle, displayName: user.displayName, email: user.email, isBot: user.isBot,
                    avatar: nil, createdAt: Rows.date(user.createdAt.storedMilliseconds), owner: owner)
            }
        } catch let error as DatabaseError {
            throw Self.uniqueViolation(
                error,
                [
                    "user.email": ParleyError(.emailTaken, "an account with this email already exists"),
                    "user.handle": ParleyError(.handleTaken, "the handle @\(user.handle) is taken"),
                    "user.phone": ParleyError(.invalidPhone, "an account with this phone number already exists"),
                ])
        }
    }

    public func user(id: UserID) async throws -> User? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Rows.userColumns) FROM user u WHERE u.id = ?", arguments: [id.rawValue])
                .map { Rows.user($0) }
        }
    }

    public func user(handle: String) async throws -> User? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Rows.userColumns) FROM user u WHERE u.handle = ?", arguments: [handle])
                .map { Rows.user($0) }
        }
    }

    public func users(ids: [UserID]) async throws -> [User] {
        try await pool.read { db in
            try ids.compactMap { id in
                try Row.fetchOne(db, sql: "SELECT \(Rows.userColumns) FROM user u WHERE u.id = ?", arguments: [id.rawValue])
                    .map { Rows.user($0) }
            }
        }
    }

    public func credentials(for login: Login) async throws -> (user: User, passwordHash: String?)? {
        let (column, value) =
            switch login {
            case .email(let email): ("email", email)
            case .handle(let handle): ("handle", handle)
            }
        return try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Rows.userColumns), u.password_hash FROM user u WHERE u.\(column) = ?", arguments: [value]
            ).map { (Rows.user($0), $0[Rows.userColumnCount]) }
        }
    }

    public func passwordHash(of user: UserID) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT password_hash FROM user WHERE id = ?", arguments: [user.rawValue])
        }
    }

    public func setPasswordHash(_ hash: String, of user: UserID) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET password_hash = ? WHERE id = ?", arguments: [hash, user.rawValue])
        }
    }

    public func setDisplayName(_ name: String, of user: UserID) async throws -> User {
        try await pool.write { db in
            try db.execute(sql: "UPDATE user SET display_name = ? WHERE id = ?", arguments: [name, user.rawValue])
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT \(Rows.userColumns) FROM user u WHERE u.id = ?", arguments: [user.rawValue])
            else { throw ParleyError(.unknownUser, "no such user") }
            return Rows.user(row)
        }
    }

    public func recordLogin(of user: UserID, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE user SET last_login_at = ?1, last_seen_at = ?1 WHERE id = ?2",
                arguments: [time.storedMilliseconds, user.rawValue])
        }
    }

    public func handleExists(_ handle: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM user WHERE handle = ?)", arguments: [handle]) ?? false
        }
    }

    public func searchUsers(prefix: String, limit: Int, offset: Int) async throws -> [User] {
        let pattern = StoredText.likePrefix(prefix)
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Rows.userColumns) FROM user u
                    WHERE u.handle LIKE ?1 ESCAPE '\\' OR u.display_name LIKE ?1 ESCAPE '\\'
                       OR u.display_name LIKE '% ' || ?1 ESCAPE '\\' OR u.email = lower(?4)
                    ORDER BY u.handle LIMIT ?2 OFFSET ?3
                    """,
                arguments: [pattern, limit, offset, prefix]
            ).map { Rows.user($0) }
        }
    }

    public func createSession(tokenHash: Data, user: UserID, expiresAt: Date, client: String, address: String, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO session (token_hash, user_id, expires_at, client, address, created_at, last_active_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    tokenHash, user.rawValue, expiresAt.storedMilliseconds, client, address, time.storedMilliseconds,
                    time.storedMilliseconds,
                ])
        }
    }

    public func sessionUser(tokenHash: Data, now: Date) async throws -> (user: UserID, expiresAt: Date)? {
        try await pool.read { db in
            try Row.fetchOne(
                db, sql: "SELECT user_id, expires_at FROM session WHERE token_hash = ? AND expires_at > ?",
                arguments: [tokenHash, now.storedMilliseconds]
            ).map { (UserID($0[0]), Rows.date($0[1] as Int64)) }
        }
    }

    public func purgeExpired(now: Date) async throws -> Int {
        let purged = try await pool.write { db in
            try db.execute(sql: "DELETE FROM session WHERE expires_at <= ?", arguments: [now.storedMilliseconds])
            var purged = db.changesCount
            try db.execute(sql: "DELETE FROM phone_code WHERE expires_at <= ?", arguments: [now.storedMilliseconds])
            purged += db.changesCount
            return purged
        }
        // Not expired, but done with: the edits and deletions the search index has taken up
        // (housekeeping, tried again at the next upkeep if it fails).
        try? pruneSearchChanges()
        return purged
    }

    public func deleteSession(tokenHash: Data) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM session WHERE token_hash = ?", arguments: [tokenHash])
        }
    }

    public func deleteSessions(of user: UserID, except tokenHash: Data?) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM session WHERE user_id = ? AND token_hash IS NOT ?", arguments: [user.rawValue, tokenHash])
        }
    }
}

/// Sessions: one per signed-in connection or token, kept by the hash of its token.
extension SQLiteChatStore {
    public func sessions(of user: UserID, now: Date) async throws -> [StoredSession] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT token_hash, client, address, created_at, last_active_at FROM session
                    WHERE user_id = ? AND expires_at > ? ORDER BY created_at, token_hash
                    """, arguments: [user.rawValue, now.storedMilliseconds]
            ).map {
                StoredSession(
                    tokenHash: $0[0], client: $0[1], address: $0[2], createdAt: Rows.date($0[3] as Int64),
                    lastActiveAt: Rows.date($0[4] as Int64))
            }
        }
    }

    public func touchSession(tokenHash: Data, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE session SET last_active_at = ? WHERE token_hash = ?", arguments: [time.storedMilliseconds, tokenHash])
        }
    }
}
