import ArgumentParser
import Foundation
import ParleyEngine

/// `--oidc-issuer URL --oidc-audience ID --oidc-jwks FILE`: the OpenID Connect provider
/// whose ID tokens `/login --id-token` accepts (for `parley serve`, and for the
/// embedded database).
struct IdentityOptions: ParsableArguments {
    @Option(name: .customLong("oidc-issuer"), help: "Accept ID tokens from this issuer (with --oidc-audience and --oidc-jwks).")
    var issuer: String?
    @Option(name: .customLong("oidc-audience"), help: "The client id the ID tokens must be meant for.")
    var audience: String?
    @Option(name: .customLong("oidc-jwks"), help: "A file with the issuer's public keys (a JWKS document).")
    var jwks: String?

    func merged(with outer: IdentityOptions) -> IdentityOptions {
        var merged = self
        merged.issuer = issuer ?? outer.issuer
        merged.audience = audience ?? outer.audience
        merged.jwks = jwks ?? outer.jwks
        return merged
    }

    /// The provider, or nil when none of the three is given.
    func provider() throws -> IdentityProvider? {
        switch (issuer, audience, jwks) {
        case (nil, nil, nil):
            return nil
        case (let issuer?, let audience?, let jwks?):
            guard let text = try? String(contentsOfFile: jwks, encoding: .utf8) else {
                throw ValidationError("--oidc-jwks: cannot read \(jwks)")
            }
            return IdentityProvider(issuer: issuer, audience: audience, jwks: text)
        default:
            throw ValidationError("--oidc-issuer, --oidc-audience and --oidc-jwks go together")
        }
    }
}
