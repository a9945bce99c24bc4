import Foundation
public import ParleyCore
import ParleyStore
import Synchronization

extension EngineSession {
    /// Signs this connection in as a guest under `nick`, for as long as it stays
    /// connected: an account with no credentials (nobody can ever sign in as it), shown
    /// as "nick (guest)". A nick an account holds is refused; a nick a guest held before
    /// is freed first, unless that guest is still online. Closing the session frees the
    /// nick again; what the guest said keeps its display name.
    public func signInAsGuest(nick: String) async throws -> SignedIn {
        try requireSignedOut()
        let handle = try Limits.userHandle(nick)
        if let throttle = engine.throttle {
            let key = "guest " + address
            try throttle.check(key, limit: throttle.limits.registrationsPerAddress, now: engine.now, what: "guests from your address")
            throttle.record(key, now: engine.now)
        }
        if let holder = try await store.user(handle: handle) {
            let online = await engine.online(among: [holder.id])
            guard online.isEmpty, try await store.retireGuest(holder.id) else {
                throw ParleyError(.handleTaken, "the nick \(handle) is taken")
            }
        }
        let user = try await store.createUser(
            NewUser(
                email: nil, handle: handle, displayName: "\(handle) (guest)", passwordHash: nil, isBot: false, createdAt: engine.now,
                isGuest: true))
        state.withLock { $0.isGuest = true }
        return try await signedIn(as: user)
    }

    /// Frees a guest's nick once its connection is gone.
    func retireIfGuest(_ user: User?) async {
        guard let user, state.withLock({ $0.isGuest }) else { return }
        _ = try? await store.retireGuest(user.id)
    }
}
