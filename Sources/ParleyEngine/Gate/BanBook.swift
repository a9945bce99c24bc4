import Foundation
import ParleyCore
import ParleyStore
import Synchronization

/// The server-wide bans, as the gate asks them: those operators made, loaded from the
/// store and kept for `freshFor`, and those the server's configuration holds (`--ban`). A
/// change made on this node is seen at once; one made on another node within `freshFor`.
final class BanBook: Sendable {
    private struct State {
        var bans: [ServerBan] = []
        /// The configuration's, which a reload may change.
        var configured: [ServerBan] = []
        var loaded: ContinuousClock.Instant?
        /// Moves on whenever a load finds other bans than the last.
        var generation = 0
    }

    static let freshFor: Duration = .seconds(5)
    private let state = Mutex(State())

    func bans(store: any ChatStore) async throws -> [ServerBan] {
        let kept = state.withLock { state -> [ServerBan]? in
            guard let loaded = state.loaded, ContinuousClock.now - loaded < Self.freshFor else { return nil }
            return state.bans + state.configured
        }
        if let kept { return kept }
        let loaded = try await store.serverBans()
        return state.withLock { state in
            if loaded != state.bans { state.generation += 1 }
            state.bans = loaded
            state.loaded = .now
            return loaded + state.configured
        }
    }

    /// Replaces the configuration's bans; false when they ban the same as before.
    func setConfigured(_ bans: [ServerBan]) -> Bool {
        state.withLock { state in
            let targets = { (bans: [ServerBan]) in bans.map { "\($0.kind.rawValue) \($0.pattern)" } }
            guard targets(bans) != targets(state.configured) else { return false }
            state.configured = bans
            state.generation += 1
            return true
        }
    }

    /// Changes whenever the bans loaded change: a node that sees it move sweeps its
    /// connections (`ChatEngine.watchBans`).
    var generation: Int { state.withLock { $0.generation } }

    /// A ban was made or lifted here: the next question loads them afresh.
    func changed() {
        state.withLock { $0.loaded = nil }
    }

    /// The live ban that refuses this handle or address, if any.
    func ban(handle: String?, address: String?, at now: Date, store: any ChatStore) async throws -> ServerBan? {
        try await bans(store: store).first { ban in
            ban.isLive(at: now)
                && ((handle.map { ban.matches(handle: $0) } ?? false) || (address.map { ban.matches(address: $0) } ?? false))
        }
    }
}
