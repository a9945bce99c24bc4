import Foundation
public import ParleyCore
import ParleyStore

/// The gate every door passes on every request: a token or session still good, the
/// account neither suspended nor banned, the address not in a banned range. A socket's
/// connection is admitted when it signs in or resumes, and `sweepBanned()` ends it the
/// moment a ban names it afterwards, on every node.
extension ChatEngine {
    /// The user a session or bot token belongs to, for a request outside a connection
    /// (the HTTP API, media) from `address`. Unlike `resume`, this makes no one online.
    public func user(token: String, address: String) async throws -> User {
        if BotToken.isToken(token) {
            guard let found = try await botToken(token), let user = try await store.user(id: found.bot.id) else {
                throw ParleyError(.invalidToken, "this bot token is not valid: revoked, or mistyped")
            }
            try await requireAdmitted(user, address: address)
            return user
        }
        return try await session(tokenHash: SecretToken.hash(token), address: address).user
    }

    /// The user of a live session and when the session expires, or `invalid_token`;
    /// refused for a suspended or banned account, or a banned `address`.
    func session(tokenHash: Data, address: String?) async throws -> (user: User, expiresAt: Date) {
        guard let (id, expiresAt) = try await store.sessionUser(tokenHash: tokenHash, now: now), let user = try await store.user(id: id)
        else {
            throw ParleyError(.invalidToken, "this session has expired or was signed out; sign in again")
        }
        try await requireAdmitted(user, address: address)
        return (user, expiresAt)
    }

    /// Throws what `user` is told when they may not come in from `address` (nil: a
    /// request with no address of its own, as a hook's maker posting through it).
    func requireAdmitted(_ user: User, address: String?) async throws {
        if let suspension = try await store.suspension(of: user.id) { throw suspension.refusal }
        guard !isOperator(user) else { return }
        if let ban = try await banBook.ban(handle: user.handle, address: address, at: now, store: store) { throw ban.refusal }
    }

    /// Throws the refusal of a request from `address` that names no account (a hook's
    /// post, a new account before its handle is known).
    func requireAddressAdmitted(_ address: String) async throws {
        if let ban = try await banBook.ban(handle: nil, address: address, at: now, store: store) { throw ban.refusal }
    }

    /// Throws the refusal of a new account with this handle (if chosen) from `address`.
    func requireRegistrationAdmitted(handle: String?, address: String) async throws {
        if let ban = try await banBook.ban(handle: handle, address: address, at: now, store: store) { throw ban.refusal }
    }

    /// Ends every open connection on this node that a live ban now names, by its
    /// account's handle or its address (operators' excepted), each told why. Returns how
    /// many it ended. A ban made here sweeps at once; `watchBans()` sweeps when another
    /// node's ban arrives.
    @discardableResult
    public func sweepBanned() async -> Int {
        guard let bans = try? await banBook.bans(store: store) else { return 0 }
        let at = now
        let live = bans.filter { $0.isLive(at: at) }
        guard !live.isEmpty else { return 0 }
        let ended = registry.sessions { handle, address in
            live.first { $0.matches(handle: handle) || $0.matches(address: address) }?.refusal
        }
        for (revoke, reason) in ended { revoke(reason) }
        return ended.count
    }

    /// Sets the bans the server's configuration holds (`--ban`, each as `/ban-server` takes
    /// it: `@handle`, a handle pattern or an address range), beside those operators make:
    /// every door refuses them, and the connections they name end, the others stay.
    /// Returns whether they changed; a target that is not a ban throws and changes nothing.
    @discardableResult
    public func setConfiguredBans(_ targets: [String]) async throws(ParleyError) -> Bool {
        var bans: [ServerBan] = []
        for (index, target) in targets.enumerated() {
            let (kind, pattern) = try ServerBan.target(target)
            bans.append(
                ServerBan(
                    id: -Int64(index + 1), kind: kind, pattern: pattern, reason: "banned by the server's configuration",
                    by: "configuration",
                    createdAt: now, expiresAt: nil))
        }
        guard banBook.setConfigured(bans) else { return false }
        await sweepBanned()
        return true
    }

    /// Sweeps whenever the bans this node knows change (another node's within
    /// `BanBook.freshFor`), until cancelled: the server runs it beside its other chores.
    public func watchBans() async {
        var seen = banBook.generation
        while !Task.isCancelled {
            guard (try? await Task.sleep(for: BanBook.freshFor)) != nil else { return }
            _ = try? await banBook.bans(store: store)
            let now = banBook.generation
            if now != seen {
                seen = now
                await sweepBanned()
            }
        }
    }
}
