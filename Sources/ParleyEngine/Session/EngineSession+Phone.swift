import Crypto
import Foundation
public import ParleyCore
import ParleyStore

extension EngineSession {
    public func requestCode(phone: String) async throws -> CodeRequest {
        try requireSignedOut()
        let phone = try Limits.phone(phone)
        let rules = engine.configuration.phoneCodes
        let now = engine.now
        let recent = try await store.codeRequests(phone: phone, address: address, since: now.addingTimeInterval(-3600))
        if let last = recent.lastForPhone, now.timeIntervalSince(last) < rules.interval.seconds {
            let wait = Int((rules.interval.seconds - now.timeIntervalSince(last)).rounded(.up))
            throw ParleyError(.rateLimited, "a code was just sent to \(phone); ask again in \(wait) s")
        }
        guard recent.forPhone < rules.perPhonePerHour else {
            throw ParleyError(.rateLimited, "\(phone) had \(rules.perPhonePerHour) codes this hour; try later")
        }
        guard recent.fromAddress < rules.perAddressPerHour else {
            throw ParleyError(.rateLimited, "too many codes asked for from here this hour; try later")
        }
        let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
        let expiresAt = now.addingTimeInterval(rules.lifetime.seconds)
        try await store.saveCode(
            phone: phone, codeHash: Self.codeHash(code, phone: phone), expiresAt: expiresAt, attempts: rules.attempts, address: address,
            at: now)
        do {
            try await engine.configuration.codeSender.send(code: code, to: phone)
        } catch {
            throw ParleyError(.unavailable, "the code could not be sent to \(phone); try again later")
        }
        return CodeRequest(phone: phone, expiresAt: expiresAt)
    }

    public func signIn(phone: String, code: String) async throws -> SignedIn {
        try requireSignedOut()
        let phone = try Limits.phone(phone)
        let code = code.trimmingCharacters(in: .whitespaces)
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw ParleyError(.invalidCode, "a sign-in code is 6 digits")
        }
        switch try await store.checkCode(phone: phone, codeHash: Self.codeHash(code, phone: phone), now: engine.now) {
        case .valid:
            break
        case .missing:
            throw ParleyError(.invalidCode, "no code is waiting for \(phone) (used, replaced or never sent): /login \(phone) sends one")
        case .expired:
            throw ParleyError(.codeExpired, "the code for \(phone) expired: /login \(phone) sends a new one")
        case .wrong(let left):
            throw ParleyError(
                .invalidCode, left > 0 ? "wrong code; \(left) attempt\(left == 1 ? "" : "s") left" : "wrong code, and no attempts left")
        case .exhausted:
            throw ParleyError(.tooManyAttempts, "too many wrong codes for \(phone): /login \(phone) sends a new one")
        }
        var user = try await store.user(phone: phone)
        if user == nil {
            _ = try await admitNewAccount(code: nil, how: "register with an email address")
            user = try await createPhoneAccount(phone)
        }
        guard let user else { throw ParleyError(.internalError, "no account for \(phone)") }
        return try await signedIn(as: user)
    }

    /// A new account for a phone number: a random handle (the number must not show in
    /// it) and no display name until the profile step.
    private func createPhoneAccount(_ phone: String) async throws -> User {
        let letters = Array("abcdefghijkmnpqrstuvwxyz23456789")
        let handles = (0..<20).map { _ in "u-" + String((0..<8).map { _ in letters.randomElement()! }) }
        let account = NewUser(email: nil, handle: "", displayName: "", passwordHash: nil, isBot: false, createdAt: engine.now, phone: phone)
        guard let user = try await createUser(account, firstFreeOf: handles) else {
            throw ParleyError(.internalError, "no free handle for a new account")
        }
        return user
    }

    /// Codes are kept only as this hash (of the number and the code).
    static func codeHash(_ code: String, phone: String) -> Data {
        Data(SHA256.hash(data: Data("\(phone):\(code)".utf8)))
    }
}
