public import Foundation
public import ParleyCore

/// Sign-in by a code sent to a phone number.
public protocol PhoneStore: Sendable {
    func user(phone: String) async throws -> User?

    /// How many codes were requested since `time` for the number and from the address,
    /// and when the number's last one was.
    func codeRequests(phone: String, address: String, since time: Date) async throws -> CodeRequestCounts

    /// Replaces the number's code (only the newest one counts) and records the request.
    func saveCode(phone: String, codeHash: Data, expiresAt: Date, attempts: Int, address: String, at time: Date) async throws

    /// Checks a code against the number's, atomically: a match uses it up, a miss
    /// spends an attempt.
    func checkCode(phone: String, codeHash: Data, now: Date) async throws -> CodeCheck
}
