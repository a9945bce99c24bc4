public import Foundation
public import ParleyCore

/// The reply to `register`, `sign_in` and `resume`: the user, the session token, and
/// the epoch of the event positions that follow.
public struct SessionResult: Codable, Sendable {
    public var user: User
    public var token: String
    public var expiresAt: Date
    public var epoch: String
    /// The newest event position when the session started: later events follow.
    public var position: UInt64
    /// False after a `resume` whose missed events are no longer all kept.
    public var complete: Bool

    public init(signedIn: SignedIn, epoch: String, position: UInt64, complete: Bool) {
        self.user = signedIn.user
        self.token = signedIn.token
        self.expiresAt = signedIn.expiresAt
        self.epoch = epoch
        self.position = position
        self.complete = complete
    }

    public var signedIn: SignedIn { SignedIn(user: user, token: token, expiresAt: expiresAt) }
}

/// `direct_chat`'s result: `{"chat": {...}}` or `{"chat": null}`.
public struct OptionalChat: Codable, Sendable {
    public var chat: Chat?
    public init(chat: Chat?) { self.chat = chat }
}
