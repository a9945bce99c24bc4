import Foundation
public import ParleyCore
import ParleyLive
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
        let handle = try Self.unreserved(try Limits.userHandle(nick))
        try await requireOwnHandle(handle, of: nil)
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
        try await requireUnheld(handle)
        let user = try await store.createUser(
            NewUser(
                email: nil, handle: handle, displayName: "\(handle) (guest)", passwordHash: nil, isBot: false, createdAt: engine.now,
                isGuest: true))
        state.withLock { $0.isGuest = true }
        return try await signedIn(as: user)
    }

    /// A guest takes another nick (IRC's NICK): one no account holds and no other guest
    /// online; its case may change too. Accounts keep their handles.
    public func renameGuest(to nick: String) async throws -> User {
        let user = try requireAccount()
        guard state.withLock({ $0.isGuest }) else {
            throw ParleyError(.forbidden, "an account's handle is its nick: @\(user.handle)")
        }
        let handle = try Self.unreserved(try Limits.userHandle(nick))
        guard handle != user.handle else { return user }
        try await requireOwnHandle(handle, of: user.id)
        if let holder = try await store.user(handle: handle), holder.id != user.id {
            let online = await engine.online(among: [holder.id])
            guard online.isEmpty, try await store.retireGuest(holder.id) else {
                throw ParleyError(.handleTaken, "the nick \(handle) is taken")
            }
        }
        let displayName = "\(handle) (guest)"
        try await requireUnheld(handle)
        guard try await store.renameGuest(user.id, to: handle, displayName: displayName) else {
            throw ParleyError(.forbidden, "an account's handle is its nick: @\(user.handle)")
        }
        var renamed = user
        renamed.handle = handle
        renamed.displayName = displayName
        state.withLock { state in
            if state.user?.id == renamed.id { state.user = renamed }
        }
        // Cached chats carry the old handle (a direct chat's participants).
        let chats = (try? await store.chatIDs(of: user.id)) ?? []
        for chat in chats { engine.directory.invalidate(chat) }
        if let contacts = try? await engine.contacts(of: user.id) {
            await engine.bus.publish(.renamed(Renamed(user: renamed.ref, previousHandle: user.handle)), to: Array(contacts), except: origin)
        }
        // To those who watch the names: the old one is gone, the new one is here.
        if handle.lowercased() != user.handle.lowercased() {
            await engine.publishToWatchers(of: user.ref, online: false)
            await engine.publishToWatchers(of: renamed.ref, online: true)
        }
        return renamed
    }

    /// A guest says it is a bot (IRC's user mode +B): what it sends carries the mark from
    /// then on. A bot account is one already; a person's account is not made one here,
    /// since bots are accounts of their own that a person makes (`/bots new`).
    public func declareBot() async throws -> User {
        let user = try requireAccount()
        if user.isBot { return user }
        guard state.withLock({ $0.isGuest }), try await store.markGuestAsBot(user.id) else {
            throw ParleyError(.forbidden, "a person's account is not a bot: make a bot account with /bots new")
        }
        var bot = user
        bot.isBot = true
        state.withLock { state in
            if state.user?.id == bot.id { state.user = bot }
        }
        // Cached chats carry the member as it was.
        for chat in (try? await store.chatIDs(of: user.id)) ?? [] { engine.directory.invalidate(chat) }
        return bot
    }

    /// A guest that goes leaves its groups: nobody can be it again, so it would only fill
    /// member lists and limits. Its contacts were told it went offline (IRC's QUIT, which
    /// leaves every channel); a group it owned passes on as when an owner leaves. What it
    /// said stays.
    func leaveGroupsIfGuest(_ user: User?) async {
        guard let user, state.withLock({ $0.isGuest }) else { return }
        for group in (try? await store.groups(of: user.id)) ?? [] {
            var successor: Member?
            if let members = try? await store.members(of: group.id), members.first(where: { $0.user.id == user.id })?.role == .owner {
                successor = Self.successor(of: user.id, among: members)
            }
            guard (try? await store.removeMember(user.id, from: group.id, newOwner: successor?.user.id)) == true else { continue }
            engine.directory.invalidate(group.id)
            if let successor {
                try? await publish(
                    .roleChanged(MemberChange(chat: group, user: successor.user, role: .owner, by: user.ref)), toMembersOf: group.id)
            }
        }
    }

    /// Frees a guest's nick once its connection is gone.
    func retireIfGuest(_ user: User?) async {
        guard let user, state.withLock({ $0.isGuest }) else { return }
        _ = try? await store.retireGuest(user.id)
        try? await store.unwatchPresence(of: nil, by: user.id)
    }
}
