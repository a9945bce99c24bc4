public import Foundation

/// Who may make an account on a server. Bot accounts are made by signed-in users
/// (`createBot`) whatever the mode, and belong to them.
public enum RegistrationMode: String, CaseIterable, Codable, Sendable {
    /// Anyone who reaches the server.
    case open
    /// Only with a sign-up code made by a server admin (`createSignupCode`).
    case invite
    /// Nobody: the accounts there are all there will be.
    case closed
}

/// A code that lets one or more people register on a server in `invite` mode. The
/// code is random (128 bits or more) and can be limited in time and in uses. `createdBy`
/// is nil for the code the server makes at start for its first admin.
public struct SignupCode: Hashable, Codable, Sendable {
    public var code: String
    public var createdBy: UserID?
    public var createdAt: Date
    public var expiresAt: Date?
    public var usesLeft: Int?
    public var revoked: Bool

    public init(code: String, createdBy: UserID?, createdAt: Date, expiresAt: Date?, usesLeft: Int?, revoked: Bool = false) {
        self.code = code
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.usesLeft = usesLeft
        self.revoked = revoked
    }

    /// Why this code cannot be used at `now` (revoked, expired, used up), or nil.
    public func refusal(at now: Date) -> ParleyError? {
        CodeRules.refusal(revoked: revoked, expiresAt: expiresAt, usesLeft: usesLeft, now: now, what: "sign-up code")
    }
}
