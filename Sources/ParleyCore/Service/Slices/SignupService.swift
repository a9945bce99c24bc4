/// Sign-up codes, for a server that registers by invitation, and the bots a user owns.
public protocol SignupService: AnyObject, Sendable {
    /// Makes a bot account that belongs to the signed-in user (not a bot), who may have
    /// up to `Limits.maxBotsPerOwner`. Works whatever the server's registration mode.
    func createBot(_ bot: NewBot) async throws -> User

    /// The bot accounts the signed-in user owns.
    func bots() async throws -> [User]

    /// A sign-up code for a server that registers by invitation (server admins only).
    func createSignupCode(maxUses: Int?, expiresIn: Duration?) async throws -> SignupCode

    /// The sign-up codes that can still be used (server admins only).
    func signupCodes() async throws -> [SignupCode]
    func revokeSignupCode(_ code: String) async throws
}
