public import Foundation
public import ParleyCore

/// Sign-up codes, for a server that registers by invitation, and the bots an owner made.
public protocol SignupStore: Sendable {
    func createSignupCode(_ code: SignupCode) async throws
    func signupCode(_ code: String) async throws -> SignupCode?

    /// The codes not revoked, not expired at `now` and not used up, newest first.
    func signupCodes(usableAt now: Date) async throws -> [SignupCode]
    func revokeSignupCode(_ code: String) async throws
    func bots(ownedBy owner: UserID) async throws -> [User]
}
