public import Foundation
public import ParleyCore

/// Sign-in by an external identity provider's token.
public protocol IdentityStore: Sendable {
    func user(issuer: String, subject: String) async throws -> User?
    func linkIdentity(issuer: String, subject: String, to user: UserID, at time: Date) async throws
}
