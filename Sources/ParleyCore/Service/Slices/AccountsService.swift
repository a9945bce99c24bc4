/// Accounts and sessions: register, sign in and out, the profile, the directory of people.
public protocol AccountsService: AnyObject, Sendable {
    func register(_ registration: Registration) async throws -> SignedIn

    /// Signs in with an email address or `@handle` and a password.
    func signIn(login: String, password: String) async throws -> SignedIn

    /// Signs back in with the token of an earlier sign-in.
    func resume(token: String) async throws -> SignedIn

    /// Revokes this session's token and signs the connection out.
    func signOut() async throws

    /// Changes the password and revokes every other session of the user.
    func changePassword(current: String, new: String) async throws
    func me() async throws -> User
    func updateProfile(displayName: String) async throws -> User

    /// The user's open sessions.
    func sessions() async throws -> [SessionInfo]

    /// Ends one of the user's sessions by its id, its live connection included.
    func revokeSession(_ id: String) async throws
    func searchUsers(_ query: String, limit: Int, offset: Int) async throws -> [User]
    func user(handle: String) async throws -> User
}
