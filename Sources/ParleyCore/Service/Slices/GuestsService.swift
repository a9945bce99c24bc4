/// Guests: IRC's unregistered nicks, accounts for as long as they are connected. A
/// gateway's verbs (`GatewayService`).
public protocol GuestsService: AnyObject, Sendable {
    /// Signs the connection in as a guest under `nick`: one no account holds and no
    /// guest online holds; shown as "nick (guest)".
    func signInAsGuest(nick: String) async throws -> SignedIn

    /// A guest takes another nick (IRC's NICK); accounts keep their handles.
    func renameGuest(to nick: String) async throws -> User

    /// A guest says it is a bot (IRC's user mode +B).
    func declareBot() async throws -> User
}
