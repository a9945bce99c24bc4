import Dispatch
import HummingbirdBcrypt
import Synchronization

/// bcrypt, run on a Dispatch queue: a hash takes tens of milliseconds and must not
/// hold a thread of Swift's cooperative pool.
struct PasswordHasher: Sendable {
    let cost: UInt8
    private let decoy = DecoyHash()

    init(cost: UInt8) {
        self.cost = cost
    }

    func hash(_ password: String) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Bcrypt.hash(password, cost: cost))
            }
        }
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
                continuation.resume(returning: Bcrypt.verify(password, hash: hash))
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
