public import Foundation

/// A user as others see them: enough to print a name and address them.
public struct UserRef: Hashable, Codable, Sendable {
    public var id: UserID
    public var handle: String
    public var displayName: String
    public var isBot: Bool

    public init(id: UserID, handle: String, displayName: String, isBot: Bool = false) {
        self.id = id
        self.handle = handle
        self.displayName = displayName
        self.isBot = isBot
    }
}

/// A user's profile. `email` is filled in only for the user themself.
public struct User: Hashable, Codable, Sendable {
    public var id: UserID
    public var handle: String
    public var displayName: String
    public var email: String?
    public var isBot: Bool
    public var avatar: String?
    public var createdAt: Date
    /// The handle of the user who made this bot account (nil for people, and for bots
    /// made before bots had owners).
    public var owner: String?

    public init(
        id: UserID, handle: String, displayName: String, email: String?, isBot: Bool,
        avatar: String?, createdAt: Date, owner: String? = nil
    ) {
        self.id = id
        self.handle = handle
        self.displayName = displayName
        self.email = email
        self.isBot = isBot
        self.avatar = avatar
        self.createdAt = createdAt
        self.owner = owner
    }

    public var ref: UserRef { UserRef(id: id, handle: handle, displayName: displayName, isBot: isBot) }

    /// The same profile without private fields, as shown to other users.
    public var publicProfile: User {
        var copy = self
        copy.email = nil
        return copy
    }
}

/// What a successful sign-in hands back: the user and the session token to resume with.
public struct SignedIn: Hashable, Codable, Sendable {
    public var user: User
    public var token: String
    public var expiresAt: Date

    public init(user: User, token: String, expiresAt: Date) {
        self.user = user
        self.token = token
        self.expiresAt = expiresAt
    }

    /// A first sign-in by phone: the account has no display name yet, and the profile
    /// step (`updateProfile`) comes before anything else.
    public var needsProfile: Bool { user.displayName.isEmpty }
}

/// A one-time code on its way to a phone.
public struct CodeRequest: Hashable, Codable, Sendable {
    /// The number in E.164 form, as the code was sent to it.
    public var phone: String
    public var expiresAt: Date

    public init(phone: String, expiresAt: Date) {
        self.phone = phone
        self.expiresAt = expiresAt
    }
}

/// The fields of a new account. `handle` is derived from the email when nil. `code`
/// is a sign-up code, which a server that registers by invitation asks for.
public struct Registration: Hashable, Codable, Sendable {
    public var email: String
    public var password: String
    public var displayName: String?
    public var handle: String?
    public var code: String?

    public init(email: String, password: String, displayName: String? = nil, handle: String? = nil, code: String? = nil) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.handle = handle
        self.code = code
    }
}

/// A bot account a signed-in user makes, which then belongs to them. It signs in with
/// its handle and `password`.
public struct NewBot: Hashable, Codable, Sendable {
    public var handle: String
    public var displayName: String?
    /// Nil: it signs in with tokens only (`/bots token`), not with a password.
    public var password: String?

    public init(handle: String, displayName: String? = nil, password: String? = nil) {
        self.handle = handle
        self.displayName = displayName
        self.password = password
    }
}
