import Foundation
public import ParleyCore
import ParleyStore
import Synchronization

extension EngineSession {
    /// Refuses a new account the server's registration mode does not allow; returns the
    /// sign-up code the account will use up (invite mode), after checking it.
    func admitNewAccount(code: String?, how: String) async throws -> String? {
        switch engine.configuration.registration {
        case .open:
            return nil
        case .closed:
            throw ParleyError(.registrationClosed, "this server takes no new accounts")
        case .invite:
            guard let raw = code else {
                throw ParleyError(
                    .codeRequired, "this server takes new accounts by invitation: \(how), with a sign-up code from an admin (--code)")
            }
            let code = raw.trimmingCharacters(in: .whitespaces)
            guard !code.isEmpty, code.utf8.count <= 64, let found = try await store.signupCode(code) else {
                throw ParleyError(.invalidInvite, "this sign-up code is not valid")
            }
            if let refusal = found.refusal(at: engine.now) { throw refusal }
            return found.code
        }
    }

    public func createBot(_ bot: NewBot) async throws -> User {
        let owner = try requireUser()
        guard !owner.isBot else { throw ParleyError(.forbidden, "a bot cannot make bot accounts") }
        let handle = try Self.unreserved(try Limits.userHandle(bot.handle))
        let name = try Limits.chosenDisplayName(bot.displayName ?? handle)
        if bot.displayName != nil { try await requireOwnName(name, of: nil, handle: handle) }
        if let password = bot.password { try Limits.password(password, minimum: engine.configuration.minPasswordBytes) }
        guard try await store.bots(ownedBy: owner.id).count < Limits.maxBotsPerOwner else {
            throw ParleyError(.forbidden, "you own \(Limits.maxBotsPerOwner) bot accounts, which is as many as one person may")
        }
        try await requireUnheld(handle)
        try await requireOwnHandle(handle, of: nil)
        var hash: String?
        if let password = bot.password { hash = await engine.hasher.hash(password) }
        return try await store.createUser(
            NewUser(
                email: nil, handle: handle, displayName: name, passwordHash: hash, isBot: true, createdAt: engine.now, owner: owner.id))
    }

    public func bots() async throws -> [User] {
        try await store.bots(ownedBy: try requireUser().id)
    }

    /// Proves that whoever holds this session knows a server admin's login and password
    /// (IRC's OPER), without signing in as them: the same checks and limits as a sign-in.
    /// Returns the admin; `forbidden` for an account that is not one.
    public func authenticateServerAdmin(login: String, password: String) async throws -> User {
        _ = try requireUser()
        let admin = try await checkedCredentials(login: login, password: password)
        guard engine.isOperator(admin) else { throw ParleyError(.forbidden, "@\(admin.handle) is not one of the server's admins") }
        state.withLock { $0.provenOperator = admin }
        return admin
    }

    public func createSignupCode(maxUses: Int?, expiresIn: Duration?) async throws -> SignupCode {
        let admin = try requireOperator("manage sign-up codes")
        return try await engine.createSignupCode(by: admin.id, maxUses: maxUses, expiresIn: expiresIn)
    }

    public func signupCodes() async throws -> [SignupCode] {
        _ = try requireOperator("manage sign-up codes")
        return try await store.signupCodes(usableAt: engine.now)
    }

    public func revokeSignupCode(_ code: String) async throws {
        _ = try requireOperator("manage sign-up codes")
        guard try await store.signupCode(code.trimmingCharacters(in: .whitespaces)) != nil else {
            throw ParleyError(.invalidInvite, "this sign-up code is not valid")
        }
        try await store.revokeSignupCode(code.trimmingCharacters(in: .whitespaces))
    }
}

extension ChatEngine {
    /// Makes a sign-up code; `by` nil is the server itself (the code for its first admin).
    public func createSignupCode(by creator: UserID?, maxUses: Int?, expiresIn: Duration?) async throws -> SignupCode {
        try Limits.invitation(maxUses: maxUses, expiresIn: expiresIn)
        let code = SignupCode(
            code: SecretToken.inviteCode(), createdBy: creator, createdAt: now,
            expiresAt: expiresIn.map { now.addingTimeInterval($0.seconds) }, usesLeft: maxUses)
        try await store.createSignupCode(code)
        return code
    }

    /// In invite mode, while none of the named admins has an account: a one-use code
    /// (valid a day) for the first of them to register with, the same one until it is
    /// used or expires. Nil when there is nothing to do.
    public func firstAdminCode() async throws -> SignupCode? {
        guard configuration.registration == .invite, !configuration.admins.isEmpty else { return nil }
        for admin in configuration.admins where try await store.handleExists(admin) { return nil }
        if let waiting = try await store.signupCodes(usableAt: now).first(where: { $0.createdBy == nil }) { return waiting }
        return try await createSignupCode(by: nil, maxUses: 1, expiresIn: .seconds(24 * 3600))
    }
}
