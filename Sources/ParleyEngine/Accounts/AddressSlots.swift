import Synchronization

/// Slots per client address, at most `limit` held at once by each: one address cannot
/// take them all and keep everyone else out. The engine keeps two: connections that have
/// not signed in yet (WebSocket, HTTP and IRC alike), and password checks under way.
public final class AddressSlots: Sendable {
    /// One slot, given back once however many times `release` is called; `retake`
    /// holds it again, past the limit if need be (for a connection that signs out: it
    /// was let in already).
    public final class Slot: Sendable {
        private let owner: AddressSlots
        let address: String
        private let held = Mutex(true)

        init(owner: AddressSlots, address: String) {
            self.owner = owner
            self.address = address
        }

        public func release() {
            if set(held: false) { owner.leave(address) }
        }

        public func retake() {
            if !set(held: true) { owner.join(address) }
        }

        /// Sets whether the slot is held; returns whether it was.
        private func set(held value: Bool) -> Bool {
            held.withLock { held in
                defer { held = value }
                return held
            }
        }
    }

    /// At most this many slots per address; 0: no limit.
    public let limit: Int
    private let counts = Mutex<[String: Int]>([:])

    public init(limit: Int) {
        self.limit = limit
    }

    /// A slot for `address`, or nil when it holds its limit already.
    public func admit(_ address: String) -> Slot? {
        let admitted = counts.withLock { counts in
            let held = counts[address, default: 0]
            guard limit == 0 || held < limit else { return false }
            counts[address] = held + 1
            return true
        }
        return admitted ? Slot(owner: self, address: address) : nil
    }

    /// How many slots `address` holds now.
    public func held(by address: String) -> Int { counts.withLock { $0[address, default: 0] } }

    private func join(_ address: String) { counts.withLock { $0[address, default: 0] += 1 } }

    private func leave(_ address: String) {
        counts.withLock { counts in
            let left = counts[address, default: 1] - 1
            counts[address] = left > 0 ? left : nil
        }
    }
}
