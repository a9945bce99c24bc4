import Crypto
import Dispatch
import HummingbirdBcrypt
import Synchronization

/// bcrypt, run on a Dispatch queue: a hash takes tens of milliseconds and must not
/// hold a thread of Swift's cooperative pool.
///
/// bcrypt reads only the first 72 bytes of a password. A longer one is first reduced to
/// the hex of its SHA-256 (64 bytes), and its stored hash is marked `sha256$`, so no
/// password of up to 72 bytes that happens to read like such hex can match it, and a
/// long password never matches a short one's hash through its first 72 bytes.
struct PasswordHasher: Sendable {
    let cost: UInt8
    private let decoy = DecoyHash()

    init(cost: UInt8) {
        self.cost = cost
    }

    func hash(_ password: String) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let long = password.utf8.count > Self.bcryptBytes
                let hash = Bcrypt.hash(long ? Self.reduced(password) : password, cost: cost)
                continuation.resume(returning: long ? Self.reducedMark + hash : hash)
            }
        }
    }

    /// The most bytes bcrypt reads.
    static let bcryptBytes = 72
    static let reducedMark = "sha256$"

    /// A long password as bcrypt is given it: the hex of its SHA-256.
    static func reduced(_ password: String) -> String {
        let digits = Array("0123456789abcdef")
        var hex = ""
        for byte in SHA256.hash(data: Array(password.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0xF)])
        }
        return hex
    }

    /// The hash an unknown account is checked against: the same cost as real ones.
    func decoyHash() -> String { decoy.hash(cost: cost) }

    /// Verifies against `hash`; with no hash it still spends the time of one verify at
    /// the same cost, so a wrong email and a wrong password take as long to refuse.
    func verify(_ password: String, hash: String?) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                guard let hash else {
                    _ = Bcrypt.verify(password, hash: decoyHash())
                    continuation.resume(returning: false)
                    return
                }
                let long = password.utf8.count > Self.bcryptBytes
                if hash.hasPrefix(Self.reducedMark) {
                    let matches = Bcrypt.verify(
                        long ? Self.reduced(password) : password, hash: String(hash.dropFirst(Self.reducedMark.count)))
                    continuation.resume(returning: long && matches)
                } else {
                    // A short password's hash: a long password is checked (for the time
                    // it takes) and never matches.
                    let matches = Bcrypt.verify(long ? Self.reduced(password) : password, hash: hash)
                    continuation.resume(returning: !long && matches)
                }
            }
        }
    }
}

/// A hash of no one's password at the real cost, made the first time it is needed (at
/// cost 12 it takes a quarter of a second, which a server start need not pay).
private final class DecoyHash: Sendable {
    private let made = Mutex<String?>(nil)

    func hash(cost: UInt8) -> String {
        if let hash = made.withLock({ $0 }) { return hash }
        let hash = Bcrypt.hash("parley-decoy-password", cost: cost)
        made.withLock { $0 = $0 ?? hash }
        return hash
    }
}
