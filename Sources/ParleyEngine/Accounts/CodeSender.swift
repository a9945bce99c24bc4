import Foundation

/// Delivers a sign-in code to a phone: a text-message gateway in production.
///
/// ```swift
/// configuration.codeSender = DevelopmentCodeSender { print($0) }
/// ```
public protocol CodeSender: Sendable {
    /// Throws when the code could not be handed over; the sign-in then fails with
    /// `unavailable`.
    func send(code: String, to phone: String) async throws
}

/// Shows the code instead of sending it: in the server's log, or in the embedded
/// shell. For development and trying Parley out, never for real users.
public struct DevelopmentCodeSender: CodeSender {
    private let show: @Sendable (String) -> Void

    public init(show: @escaping @Sendable (String) -> Void) {
        self.show = show
    }

    public func send(code: String, to phone: String) async throws {
        show("[development] sign-in code for \(phone): \(code)")
    }
}

/// The numbers of phone sign-in.
public struct PhoneCodeRules: Sendable {
    public var lifetime: Duration = .seconds(300)
    public var attempts = 5
    /// A number gets a new code at most this often…
    public var interval: Duration = .seconds(30)
    /// …and at most this many an hour.
    public var perPhonePerHour = 5
    /// One client address may ask for this many codes an hour, across numbers.
    public var perAddressPerHour = 20

    public init() {}
}
