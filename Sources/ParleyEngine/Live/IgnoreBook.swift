import ParleyCore
import ParleyStore
import Synchronization

/// Who ignores whom, as the delivery of each message asks it: briefly remembered per
/// sender (and per user, for what they read back). A change made on this node is seen
/// at once; one made on another node within `freshFor`.
final class IgnoreBook: Sendable {
    private struct Entry {
        var users: Set<UserID>
        var loaded: ContinuousClock.Instant
    }

    private struct State {
        var ignorers: [UserID: Entry] = [:]
        var ignoring: [UserID: Entry] = [:]
    }

    static let freshFor: Duration = .seconds(10)
    /// Entries kept before the book starts afresh.
    static let capacity = 50_000
    private let state = Mutex(State())

    /// Who ignores `sender`.
    func ignorers(of sender: UserID, store: any ChatStore) async -> Set<UserID> {
        if let users = fresh(\.ignorers, sender) { return users }
        let loaded = Set((try? await store.ignorers(of: sender)) ?? [])
        keep(\.ignorers, sender, loaded)
        return loaded
    }

    /// Whom `user` ignores.
    func ignoring(by user: UserID, store: any ChatStore) async -> Set<UserID> {
        if let users = fresh(\.ignoring, user) { return users }
        let loaded = Set(((try? await store.ignored(by: user)) ?? []).map(\.id))
        keep(\.ignoring, user, loaded)
        return loaded
    }

    /// `user` started or stopped ignoring `target`: both are looked up afresh.
    func changed(user: UserID, target: UserID) {
        state.withLock { state in
            state.ignoring[user] = nil
            state.ignorers[target] = nil
        }
    }

    private func fresh(_ side: KeyPath<State, [UserID: Entry]>, _ key: UserID) -> Set<UserID>? {
        state.withLock { state in
            guard let entry = state[keyPath: side][key], ContinuousClock.now - entry.loaded < Self.freshFor else { return nil }
            return entry.users
        }
    }

    private func keep(_ side: WritableKeyPath<State, [UserID: Entry]>, _ key: UserID, _ users: Set<UserID>) {
        state.withLock { state in
            if state[keyPath: side].count >= Self.capacity { state[keyPath: side].removeAll() }
            state[keyPath: side][key] = Entry(users: users, loaded: .now)
        }
    }
}
