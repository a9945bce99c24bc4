import Foundation
import JWTKit
public import ParleyCore
import ParleyStore

extension EngineSession {
    public func signIn(idToken: String) async throws -> SignedIn {
        try requireSignedOut()
        guard let verifier = engine.identity, let provider = engine.configuration.identityProvider else {
            throw ParleyError(
                .unavailable, "sign-in with an external identity is not set up here (--oidc-issuer, --oidc-audience, --oidc-jwks)")
        }
        let claims = try await verifier.verify(idToken.trimmingCharacters(in: .whitespacesAndNewlines), now: engine.now)
        let subject = claims.sub.value
        if let user = try await store.user(issuer: provider.issuer, subject: subject) { return try await signedIn(as: user) }
        // Only an email the provider vouches for may pick up an existing account.
        let verifiedEmail = claims.email_verified?.value == true ? claims.email.flatMap { try? Limits.email($0) } : nil
        var user: User
        if let verifiedEmail, let existing = try await store.credentials(for: .email(verifiedEmail))?.user {
            user = existing
        } else {
            _ = try await admitNewAccount(code: nil, how: "register with an email address")
            let name = claims.name.flatMap { try? Limits.displayName($0) }
            user = try await createAccount(
                email: verifiedEmail, handle: nil, displayName: name ?? Limits.handle(fromEmail: verifiedEmail ?? "user"),
                passwordHash: nil,
                signupCode: nil)
        }
        try await store.linkIdentity(issuer: provider.issuer, subject: subject, to: user.id, at: engine.now)
        // Two first sign-ins at once: the link that landed first wins, for both.
        if let linked = try await store.user(issuer: provider.issuer, subject: subject) { user = linked }
        return try await signedIn(as: user)
    }
}
