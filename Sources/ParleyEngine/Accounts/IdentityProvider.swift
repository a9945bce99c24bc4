import Foundation
public import JWTKit
import ParleyCore

/// The OpenID Connect provider whose ID tokens the engine accepts: its issuer, the
/// audience (this app's client id), and its public keys as a JWKS document.
public struct IdentityProvider: Sendable {
    public var issuer: String
    public var audience: String
    public var jwks: String

    public init(issuer: String, audience: String, jwks: String) {
        self.issuer = issuer
        self.audience = audience
        self.jwks = jwks
    }
}

/// The claims of an ID token that Parley reads.
public struct IDTokenClaims: JWTPayload {
    public var iss: IssuerClaim
    public var sub: SubjectClaim
    public var aud: AudienceClaim
    public var exp: ExpirationClaim
    public var nbf: NotBeforeClaim?
    public var email: String?
    public var email_verified: BoolClaim?
    public var name: String?

    public init(
        iss: IssuerClaim, sub: SubjectClaim, aud: AudienceClaim, exp: ExpirationClaim, nbf: NotBeforeClaim? = nil,
        email: String? = nil, email_verified: BoolClaim? = nil, name: String? = nil
    ) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.nbf = nbf
        self.email = email
        self.email_verified = email_verified
        self.name = name
    }

    /// The claims are checked by the engine (with its clock, and a code for each
    /// failure), not here.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// Checks ID tokens against an `IdentityProvider`: an RS256 or ES256 signature by one
/// of its keys (named by `kid`), then issuer, audience, expiry and not-before against
/// the engine's clock. Each failure has its own code.
actor IdentityVerifier {
    typealias Claims = IDTokenClaims

    private let provider: IdentityProvider
    private var keys: JWTKeyCollection?
    private var keyIDs: Set<String> = []

    init(provider: IdentityProvider) {
        self.provider = provider
    }

    func verify(_ token: String, now: Date) async throws -> Claims {
        let header = try Self.header(of: token)
        guard let alg = header["alg"] as? String, alg == "RS256" || alg == "ES256" else {
            throw ParleyError(.invalidIDToken, "the token is signed with \(header["alg"] ?? "nothing"); only RS256 and ES256 are taken")
        }
        let keys = try await loadedKeys()
        guard let kid = header["kid"] as? String, keyIDs.contains(kid) else {
            throw ParleyError(.unknownKey, "the token names a key the provider's key set does not have")
        }
        let claims: Claims
        do {
            claims = try await keys.verify(token, as: Claims.self)
        } catch {
            throw ParleyError(.badSignature, "the token's signature does not verify with key \(kid)")
        }
        guard claims.iss.value == provider.issuer else {
            throw ParleyError(.wrongIssuer, "the token comes from \(claims.iss.value), not \(provider.issuer)")
        }
        guard claims.aud.value.contains(provider.audience) else {
            throw ParleyError(.wrongAudience, "the token is meant for another application")
        }
        guard claims.exp.value > now else { throw ParleyError(.idTokenExpired, "the token expired at \(claims.exp.value)") }
        if let notBefore = claims.nbf, notBefore.value > now {
            throw ParleyError(.idTokenNotYetValid, "the token is not valid before \(notBefore.value)")
        }
        return claims
    }

    private func loadedKeys() async throws -> JWTKeyCollection {
        if let keys { return keys }
        let collection = JWTKeyCollection()
        do {
            try await collection.add(jwksJSON: provider.jwks)
        } catch {
            throw ParleyError(.unavailable, "the identity provider's key set cannot be read: \(error)")
        }
        let document = try? JSONSerialization.jsonObject(with: Data(provider.jwks.utf8)) as? [String: Any]
        let entries = document?["keys"] as? [[String: Any]] ?? []
        keyIDs = Set(entries.compactMap { $0["kid"] as? String })
        keys = collection
        return collection
    }

    /// The token's header, decoded without trusting it.
    private static func header(of token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = base64URL(parts[0]),
            let header = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw ParleyError(.invalidIDToken, "not a JSON Web Token") }
        return header
    }

    private static func base64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
