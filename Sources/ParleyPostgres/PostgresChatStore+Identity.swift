public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// `IdentityStore`: sign-in by an external identity provider's token.
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
}
