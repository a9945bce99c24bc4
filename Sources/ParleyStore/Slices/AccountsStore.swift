public import Foundation
public import ParleyCore

/// Accounts and their sessions: sign-up, credentials, profiles, the directory of people.
public protocol AccountsStore: Sendable {
    /// Creates an account; throws `email_taken` or `handle_taken`.
    func createUser(_ user: NewUser) async throws -> User
    func user(id: UserID) async throws -> User?
    func user(handle: String) async throws -> User?
    func users(ids: [UserID]) async throws -> [User]

    /// The account and its password hash for an email or handle.
    func credentials(for login: Login) async throws -> (user: User, passwordHash: String?)?
    func passwordHash(of user: UserID) async throws -> String?
    func setPasswordHash(_ hash: String, of user: UserID) async throws
    func setDisplayName(_ name: String, of user: UserID) async throws -> User

    /// Records a sign-in at `time`, which is also when the user was last seen.
    func recordLogin(of user: UserID, at time: Date) async throws
    func handleExists(_ handle: String) async throws -> Bool

    /// Users whose handle or display name (any word) starts with `prefix`, or whose
    /// email is `prefix` as a whole (so addresses cannot be enumerated), by handle.
    func searchUsers(prefix: String, limit: Int, offset: Int) async throws -> [User]
    func createSession(tokenHash: Data, user: UserID, expiresAt: Date, client: String, address: String, at time: Date) async throws

    /// The user of a session that has not expired by `now`, and when it expires.
    func sessionUser(tokenHash: Data, now: Date) async throws -> (user: UserID, expiresAt: Date)?
    func deleteSession(tokenHash: Data) async throws
    func deleteSessions(of user: UserID, except tokenHash: Data?) async throws

    /// The user's sessions that have not expired by `now`, oldest first.
    func sessions(of user: UserID, now: Date) async throws -> [StoredSession]

    /// Records that a session was used at `time`.
    func touchSession(tokenHash: Data, at time: Date) async throws

    /// Deletes sessions and phone codes that expired before `now`; returns how many went.
    func purgeExpired(now: Date) async throws -> Int
}
