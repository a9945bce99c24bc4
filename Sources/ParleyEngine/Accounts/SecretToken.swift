import Crypto
import Foundation

/// Random secrets: session tokens and invite codes.
enum SecretToken {
    /// A 256-bit session token, base64url without padding.
    static func session() -> String {
        base64URL(randomBytes(32))
    }

    /// A 130-bit invite code in lowercase base32 (26 characters), easy to read out and type.
    static func inviteCode() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var generator = SystemRandomNumberGenerator()
        return String((0..<26).map { _ in alphabet[Int(generator.next(upperBound: UInt8(32)))] })
    }

    /// What the store keeps instead of the token.
    static func hash(_ token: String) -> Data {
        Data(SHA256.hash(data: Data(token.utf8)))
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
