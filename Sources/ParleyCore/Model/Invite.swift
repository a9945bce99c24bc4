public import Foundation

/// An invite link to a group. The code is random (128 bits or more) and can be
/// limited in time and in uses, or revoked.
public struct Invite: Hashable, Codable, Sendable {
    public static let linkPrefix = "parley://join/"

    public var code: String
    public var chatID: ChatID
    public var createdBy: UserID
    public var expiresAt: Date?
    public var usesLeft: Int?
    public var revoked: Bool
    /// The one user who may use it, for an invitation sent to someone (IRC's INVITE);
    /// nil for a code anyone holding it may use.
    public var forUser: UserID?

    public init(
        code: String, chatID: ChatID, createdBy: UserID, expiresAt: Date?, usesLeft: Int?, revoked: Bool, forUser: UserID? = nil
    ) {
        self.forUser = forUser
        self.code = code
        self.chatID = chatID
        self.createdBy = createdBy
        self.expiresAt = expiresAt
        self.usesLeft = usesLeft
        self.revoked = revoked
    }

    public var link: String { Self.linkPrefix + code }

    /// Why this invite cannot be used at `now` (revoked, expired, used up), or nil.
    public func refusal(at now: Date) -> ParleyError? {
        CodeRules.refusal(revoked: revoked, expiresAt: expiresAt, usesLeft: usesLeft, now: now, what: "invite")
    }

    /// Accepts a bare code or a `parley://join/CODE` link and returns the code.
    public static func code(fromCodeOrLink text: String) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix(linkPrefix) { return String(trimmed.dropFirst(linkPrefix.count)) }
        return trimmed
    }
}

/// A member of a group who is online, and whether they are looking at the group now.
public struct PresenceEntry: Hashable, Codable, Sendable {
    public var user: UserRef
    public var viewing: Bool
    /// Their away message, when they are away.
    public var away: String?

    public init(user: UserRef, viewing: Bool, away: String? = nil) {
        self.away = away
        self.user = user
        self.viewing = viewing
    }
}

/// The rules group invites and sign-up codes share, decided by the engine for every
/// store alike.
enum CodeRules {
    static func refusal(revoked: Bool, expiresAt: Date?, usesLeft: Int?, now: Date, what: String) -> ParleyError? {
        if revoked { return ParleyError(.inviteRevoked, "this \(what) was revoked") }
        if let expiresAt, expiresAt <= now { return ParleyError(.inviteExpired, "this \(what) has expired") }
        if let usesLeft, usesLeft <= 0 { return ParleyError(.inviteUsedUp, "this \(what) has been used up") }
        return nil
    }
}
