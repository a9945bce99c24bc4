import Foundation
public import ParleyCore
import ParleyLive
import ParleyStore
import Synchronization

/// `AccountsService`: registration, sign-in, the profile, sessions, the directory of people.
extension EngineSession {
    public func register(_ registration: Registration) async throws -> SignedIn {
        try requireSignedOut()
        let email = try Limits.email(registration.email)
        try Limits.password(registration.password, minimum: engine.configuration.minPasswordBytes)
        let chosenHandle = try registration.handle.map { handle throws(ParleyError) in try Self.unreserved(try Limits.userHandle(handle)) }
        let displayName = try Limits.chosenDisplayName(
            registration.displayName ?? chosenHandle ?? Limits.handle(fromEmail: email))
        // A name chosen, not the handle taken as one (a taken handle says so itself).
        if registration.displayName != nil { try await requireOwnName(displayName, of: nil, handle: chosenHandle) }
        if let throttle = engine.throttle {
            let key = "register " + address
            try throttle.check(key, limit: throttle.limits.registrationsPerAddress, now: engine.now, what: "new accounts from your address")
            throttle.record(key, now: engine.now)
        }
        try await engine.requireRegistrationAdmitted(handle: chosenHandle, address: address)
        let code = try await admitNewAccount(code: registration.code, how: "register")
        let hash = try await checkingPassword { await engine.hasher.hash(registration.password) }
        let user = try await createAccount(
            email: email, handle: chosenHandle, displayName: displayName, passwordHash: hash, signupCode: code)
        return try await signedIn(as: user)
    }

    /// Creates a person's account, deriving a free handle from the email when none was
    /// chosen; `signupCode` is used up in the same transaction.
    func createAccount(email: String?, handle: String?, displayName: String, passwordHash: String?, signupCode: String?) async throws
        -> User
    {
        var account = NewUser(
            email: email, handle: handle ?? "", displayName: displayName, passwordHash: passwordHash, isBot: false, createdAt: engine.now,
            signupCode: signupCode)
        if let handle {
            try await requireUnheld(handle)
            try await requireOwnHandle(handle, of: nil)
            return try await store.createUser(account)
        }
        let base = Limits.handle(fromEmail: email ?? displayName.lowercased().replacingOccurrences(of: " ", with: "."))
        account.handle = base
        guard let user = try await createUser(account, firstFreeOf: [base] + (2...50).map { "\(base)\($0)" }) else {
            throw ParleyError(.handleTaken, "no free handle near @\(base); choose one with --handle")
        }
        return user
    }

    /// Creates `account` under the first of `handles` that is free (nil: none was).
    func createUser(_ account: NewUser, firstFreeOf handles: [String]) async throws -> User? {
        for handle in handles {
            guard try await !store.handleExists(handle), try await !store.isHandleHeld(handle, at: engine.now) else { continue }
            var account = account
            account.handle = handle
            do {
                return try await store.createUser(account)
            } catch let error as ParleyError where error.code == .handleTaken {
                continue  // taken between the check and the insert
            }
        }
        return nil
    }

    /// Records the sign-in and starts a session: the last step of every way in.
    func signedIn(as user: User) async throws -> SignedIn {
        try await engine.requireAdmitted(user, address: address)
        let now = engine.now
        let seenBefore = try await store.activity(of: user.id)?.lastSeen
        state.withLock { $0.seenBefore = seenBefore }
        try await store.recordLogin(of: user.id, at: now)
        engine.activity.written(user: user.id, session: nil, at: now)
        let signed = try await startSession(for: user)
        // Suspended while this sign-in was under way: its sessions were ended before this
        // one began, so this one ends here.
        if let suspension = try await store.suspension(of: user.id) {
            try? await signOut()
            throw suspension.refusal
        }
        return signed
    }

    /// A bot token as the password (`pbt_…`) signs in as its bot, when the login names
    /// that bot: how IRC clients and the shell's `/login` use one.
    public func signIn(login: String, password: String) async throws -> SignedIn {
        try requireSignedOut()
        if BotToken.isToken(password) {
            let handle = login.trimmingCharacters(in: .whitespaces).lowercased()
            guard let token = try await engine.botToken(password),
                ["", token.bot.handle.lowercased(), "@" + token.bot.handle.lowercased()].contains(handle)
            else { throw ParleyError(.badCredentials, "wrong login or password") }
            return try await signIn(botToken: password)
        }
        return try await signedIn(as: try await checkedCredentials(login: login, password: password))
    }

    /// The account a login (handle or email) and password belong to, counting a failure
    /// against the account from this address, the address, and the account's day
    /// (`SignInLimits`: none of them can lock the right password out from an address
    /// that has not failed on the account). A failure counts against the account the
    /// login names, however it is spelt (`@VICTIM`, `Victim`, its email): a login that
    /// names none counts against its own folded spelling.
    func checkedCredentials(login: String, password: String) async throws -> User {
        let trimmed = login.trimmingCharacters(in: .whitespaces)
        let key: Login =
            trimmed.contains("@") && !trimmed.hasPrefix("@")
            ? .email(trimmed.lowercased()) : .handle(trimmed.hasPrefix("@") ? String(trimmed.dropFirst()) : trimmed)
        let found = try await store.credentials(for: key)
        let account = found.map { "#\($0.user.id.rawValue)" } ?? "\(key)".lowercased()
        let (pairKey, addressKey) = ("account \(account) from \(address)", "address " + address)
        let (dayKey, dayPairKey) = ("day \(account)", "day \(account) from \(address)")
        let now = engine.now
        if let throttle = engine.throttle {
            let limits = throttle.limits
            try throttle.check(
                pairKey, limit: limits.failuresPerAccount, now: now, what: "failed sign-ins to this account from your address")
            try throttle.check(addressKey, limit: limits.failuresPerAddress, now: now, what: "failed sign-ins from your address")
            if limits.failuresPerAccountPerDay > 0, throttle.count(dayKey, now: now) >= limits.failuresPerAccountPerDay,
                throttle.count(dayPairKey, now: now) > 0
            {
                throw ParleyError(.rateLimited, "too many failed sign-ins to this account today from your address")
            }
        }
        let matches = try await checkingPassword { await engine.hasher.verify(password, hash: found?.passwordHash) }
        guard matches, let user = found?.user else {
            if let throttle = engine.throttle {
                throttle.record(pairKey, now: now)
                throttle.record(addressKey, now: now)
                throttle.record(dayKey, now: now, span: throttle.limits.day)
                throttle.record(dayPairKey, now: now, span: throttle.limits.day)
            }
            throw ParleyError(.badCredentials, "wrong login or password")
        }
        engine.throttle?.forget(pairKey)
        return user
    }

    /// Runs a password hash or check in one of the address's slots for them; past
    /// `maxPasswordChecksPerAddress` at once, `rate_limited` and no work done.
    func checkingPassword<Result>(_ work: () async -> Result) async throws -> Result {
        guard let slot = engine.passwordChecks.admit(address) else {
            throw ParleyError(.rateLimited, "too many sign-ins under way from your address: try again in a moment")
        }
        defer { slot.release() }
        return await work()
    }

    public func resume(token: String) async throws -> SignedIn {
        try await resume(token: token, after: nil).signedIn
    }

    /// Signs back in with a token and first delivers the user's events after `after`.
    /// `complete` is false when some of those events are no longer kept (the server
    /// restarted or the client was away too long): the client should reload history.
    public func resume(token: String, after: EventPosition?) async throws -> (signedIn: SignedIn, complete: Bool) {
        try requireSignedOut()
        let hash = SecretToken.hash(token)
        let (user, expiresAt) = try await engine.session(tokenHash: hash, address: address)
        let complete = await attach(user, tokenHash: hash, expiresAt: expiresAt, after: after)
        await tellMissedRemindersOnSignIn()
        let signedIn = SignedIn(user: user, token: token, expiresAt: expiresAt)
        return (signedIn, complete)
    }

    public func signOut() async throws {
        let user = try requireAccount()
        let (tokenHash, subscription) = state.withLock { ($0.tokenHash, $0.subscription) }
        if let tokenHash {
            try await store.deleteSession(tokenHash: tokenHash)
            await engine.endSessions(of: user.id, .signedOut(token: tokenHash), except: number)
        }
        await detach(user: user, subscription: subscription)
    }

    public func changePassword(current: String, new: String) async throws {
        let user = try requireUser()
        guard await engine.hasher.verify(current, hash: try await store.passwordHash(of: user.id)) else {
            throw ParleyError(.badCredentials, "the current password is wrong")
        }
        try Limits.password(new, minimum: engine.configuration.minPasswordBytes)
        try await store.setPasswordHash(await engine.hasher.hash(new), of: user.id)
        let kept = state.withLock { $0.tokenHash }
        try await store.deleteSessions(of: user.id, except: kept)
        await engine.endSessions(of: user.id, .passwordChanged(keeping: kept), except: number)
    }

    public func me() async throws -> User {
        let user = try requireAccount()
        return try await store.user(id: user.id) ?? user
    }

    /// Refuses a display name that reads as another user's: their handle (with or
    /// without `@`), or their display name, ignoring case and spaces and compared by
    /// confusable skeleton (`ConfusableNames`: `аlice` with a Cyrillic `а` reads as
    /// `alice`). Names are looked for by the skeleton's beginning and by the name's own.
    func requireOwnName(_ name: String, of user: UserID?, handle: String?) async throws {
        let folded = name.lowercased().filter { $0 != " " }
        let skeleton = ConfusableNames.skeleton(name)
        for candidate in Set([folded, skeleton]) where candidate != handle?.lowercased() {
            if let handleLike = try? Limits.userHandle(candidate), let holder = try await store.user(handle: handleLike), holder.id != user
            {
                throw ParleyError(.invalidName, "that display name reads as @\(holder.handle)'s handle")
            }
        }
        var alike = try await store.searchUsers(prefix: String(name.prefix(32)), limit: 20, offset: 0)
        if let plain = Self.searchable(like: name) {
            alike += try await store.searchUsers(prefix: plain, limit: 20, offset: 0)
        }
        if let other = alike.first(where: { $0.id != user && ConfusableNames.skeleton($0.displayName) == skeleton }) {
            throw ParleyError(.invalidName, "@\(other.handle) already goes by that display name, or one that reads the same")
        }
    }

    /// Refuses a new handle (or nick) that reads as another account's: one with the same
    /// confusable skeleton (`a1ice`, `ma11ory`, `rnallory` beside `alice` and `mallory`).
    /// Handles are ASCII, so every spelling of the skeleton is looked up.
    func requireOwnHandle(_ handle: String, of user: UserID?) async throws {
        for lookalike in ConfusableNames.lookalikeHandles(of: handle) {
            guard let candidate = try? Limits.userHandle(lookalike), let holder = try await store.user(handle: candidate), holder.id != user
            else { continue }
            throw ParleyError(.invalidHandle, "@\(handle) reads as @\(holder.handle), someone else's handle")
        }
    }

    /// The name's words by their skeletons, as a search prefix (a search matches names
    /// as written, spaces and all), when that differs from the name.
    static func searchable(like name: String) -> String? {
        let prefix = String(name.split(separator: " ").map { ConfusableNames.skeleton(String($0)) }.joined(separator: " ").prefix(32))
        return prefix.isEmpty || prefix == String(name.lowercased().prefix(32)) ? nil : prefix
    }

    /// A handle nobody may take (`Limits.isReservedHandle`), refused as `invalid_handle`.
    static func unreserved(_ handle: String) throws(ParleyError) -> String {
        guard !Limits.isReservedHandle(handle) else {
            throw ParleyError(.invalidHandle, "the handle @\(handle) is reserved")
        }
        return handle
    }

    /// Changes the user's display name; everyone who shares a chat with them, and who
    /// watches their handle, hears of it (`renamed`). A guest's name keeps its mark.
    public func updateProfile(displayName: String) async throws -> User {
        let user = try requireAccount()
        var name = try Limits.chosenDisplayName(displayName)
        try await requireOwnName(name, of: user.id, handle: user.handle)
        if state.withLock({ $0.isGuest }) { name = try Limits.displayName(name + " (guest)") }
        let updated = try await store.setDisplayName(name, of: user.id)
        state.withLock { $0.user = updated }
        guard updated.displayName != user.displayName else { return updated }
        for chat in (try? await store.chatIDs(of: user.id)) ?? [] { engine.directory.invalidate(chat) }
        let change = Renamed(user: updated.ref, previousHandle: user.handle)
        let contacts = (try? await engine.contacts(of: user.id)) ?? []
        await engine.bus.publish(.renamed(change), to: Array(contacts), except: origin)
        await engine.publishToWatchers(.renamed(change.toWatcher), of: user.ref, except: contacts)
        return updated
    }

    /// Long enough for any email address, which is matched only when given whole.
    static let maxUserQueryLength = 254

    public func searchUsers(_ query: String, limit: Int, offset: Int) async throws -> [User] {
        _ = try requireUser()
        let limit = try Limits.pageSize(limit)
        guard offset >= 0 else { throw ParleyError(.invalidArgument, "the offset cannot be negative") }
        var prefix = query.trimmingCharacters(in: .whitespaces)
        guard prefix.count <= Self.maxUserQueryLength, !prefix.unicodeScalars.contains(where: Limits.isControl) else {
            throw ParleyError(.invalidArgument, "a user search is at most \(Self.maxUserQueryLength) characters without control characters")
        }
        if prefix.hasPrefix("@") { prefix.removeFirst() }
        return try await store.searchUsers(prefix: prefix, limit: limit, offset: offset).map(\.publicProfile)
    }

    public func user(handle: String) async throws -> User {
        _ = try requireUser()
        let bare = handle.hasPrefix("@") ? String(handle.dropFirst()) : handle
        // As for groups: a NUL would end the store's string early.
        guard !bare.unicodeScalars.contains(where: Limits.isControl), let user = try await store.user(handle: bare) else {
            throw ParleyError(.unknownUser, "no user @\(bare)")
        }
        return user.publicProfile
    }

    func requireSignedOut() throws {
        if let user = state.withLock({ $0.user }) {
            throw ParleyError(.alreadySignedIn, "already signed in as @\(user.handle); sign out first")
        }
    }

    func startSession(for user: User) async throws -> SignedIn {
        let token = SecretToken.session()
        let hash = SecretToken.hash(token)
        let expiresAt = engine.now.addingTimeInterval(engine.configuration.sessionLifetime.seconds)
        let now = engine.now
        try await store.createSession(tokenHash: hash, user: user.id, expiresAt: expiresAt, client: client, address: address, at: now)
        engine.activity.written(user: nil, session: hash, at: now)
        await attach(user, tokenHash: hash, expiresAt: expiresAt, after: nil)
        await tellMissedRemindersOnSignIn()
        return SignedIn(user: user, token: token, expiresAt: expiresAt)
    }

    /// Signs this connection in: subscribes to the user's events and makes them online.
    @discardableResult
    private func attach(_ user: User, tokenHash: Data, expiresAt: Date, after: EventPosition?) async -> Bool {
        let deliver: @Sendable (PositionedEvent) -> Void
        if let sink {
            deliver = sink
        } else {
            let continuation = continuation
            deliver = { continuation.yield($0.event) }
        }
        let (subscription, complete) = await engine.bus.subscribe(user.id, tokenHash: tokenHash, after: after, deliver: deliver)
        let open = state.withLock { state in
            // Closed while subscribing: the connection is gone, so nobody comes online.
            guard !state.closed else { return false }
            state.user = user
            state.tokenHash = tokenHash
            state.expiresAt = expiresAt
            state.subscription = subscription
            return true
        }
        guard open else {
            engine.bus.unsubscribe(subscription)
            return complete
        }
        let cameOnline = engine.registry.connect(
            user.id, session: number, tokenHash: tokenHash, address: address, handle: user.handle, isOperator: engine.isOperator(user)
        ) { [weak self] reason in
            guard let self else { return }
            // The front end hears of it at once (an operator's KILL is answered after
            // the connection is told and closing); the rest follows.
            self.ended?(reason)
            Task { await self.detach(user: user, subscription: subscription) }
        }
        if cameOnline {
            let engine = engine
            await engine.presenceOrder.run(user.id) {
                if await engine.arrived(user.id) { await engine.publishPresence(of: user.ref, online: true, viewing: nil) }
            }.value
        }
        if let away = try? await store.activity(of: user.id)?.away { engine.activity.setAway(away, of: user.id) }
        return complete
    }

    public func sessions() async throws -> [SessionInfo] {
        let user = try requireUser()
        let current = state.withLock { $0.tokenHash }
        return try await store.sessions(of: user.id, now: engine.now).map { session in
            SessionInfo(
                id: Self.publicID(of: session.tokenHash), client: session.client, address: session.address, startedAt: session.createdAt,
                lastActiveAt: Self.minute(session.lastActiveAt), current: session.tokenHash == current)
        }
    }

    public func revokeSession(_ id: String) async throws {
        let user = try requireUser()
        let wanted = id.trimmingCharacters(in: .whitespaces).lowercased()
        guard
            let session = try await store.sessions(of: user.id, now: engine.now).first(where: { Self.publicID(of: $0.tokenHash) == wanted })
        else { throw ParleyError(.unknownSession, "you have no session \(id) (see /sessions)") }
        if session.tokenHash == state.withLock({ $0.tokenHash }) { return try await signOut() }
        try await store.deleteSession(tokenHash: session.tokenHash)
        await engine.endSessions(of: user.id, .signedOut(token: session.tokenHash), except: number)
    }

    /// A session's public name: the first 4 bytes of its token's hash, in hex. The
    /// hash cannot be turned back into the token, and a user has few sessions.
    static func publicID(of tokenHash: Data) -> String {
        tokenHash.prefix(4).map { String(format: "%02x", $0) }.joined()
    }
}
