import Dispatch
import HummingbirdBcrypt

/// bcrypt, run on a Dispatch queue: a hash takes tens of milliseconds and must not
/// hold a thread of Swift's cooperative pool.
struct PasswordHasher: Sendable {
    var cost: UInt8

    func hash(_ password: String) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Bcrypt.hash(password, cost: cost))
            }
        }
    }

    /// Verifies against `hash`; with no hash it still spends the time of one verify, so a
    /// wrong email and a wrong password take as long to refuse.
    func verify(_ password: String, hash: String?) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                guard let hash else {
                    _ = Bcrypt.verify(password, hash: Self.decoyHash)
                    continuation.resume(returning: false)
                    return
                }
                continuation.resume(returning: Bcrypt.verify(password, hash: hash))
            }
        }
    }

    private static let decoyHash = Bcrypt.hash("parley-decoy-password", cost: 4)
}
