/// Sign-in by an external identity provider's token.
public protocol IdentityService: AnyObject, Sendable {
    /// Signs in with an OpenID Connect ID token from the identity provider the engine
    /// trusts. The account is found by issuer and subject, linked to the account with
    /// the token's email only when the provider marks it verified, or else created.
    func signIn(idToken: String) async throws -> SignedIn
}
