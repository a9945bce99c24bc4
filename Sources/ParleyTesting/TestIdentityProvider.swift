import CryptoExtras
public import Foundation
import JWTKit
public import ParleyEngine

/// An OpenID Connect provider made up inside a test: an RS256 key (`rsa-1`) and an
/// ES256 key (`ec-1`) generated on the spot, their JWKS, and ID tokens signed with them.
public final class TestIdentityProvider: Sendable {
    public static let issuer = "https://id.example.test"
    public static let audience = "parley-test-client"

    public let provider: IdentityProvider
    private let signers: JWTKeyCollection
    /// Keys the provider does not publish, for tokens that must fail.
    private let strangers: JWTKeyCollection

    public init() async throws {
        let rsa = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let ec = ES256PrivateKey()
        let primitives = try _RSA.Signing.PrivateKey(pemRepresentation: rsa.pemRepresentation).publicKey.getKeyPrimitives()
        guard let point = ec.publicKey.parameters else { throw ProviderError() }
        let jwks = """
            {"keys": [
              {"kty": "RSA", "kid": "rsa-1", "alg": "RS256", "use": "sig", "n": "\(Self.base64URL(primitives.modulus))", "e": "\(Self.base64URL(primitives.publicExponent))"},
              {"kty": "EC", "kid": "ec-1", "alg": "ES256", "use": "sig", "crv": "P-256", "x": "\(point.x)", "y": "\(point.y)"}
            ]}
            """
        provider = IdentityProvider(issuer: Self.issuer, audience: Self.audience, jwks: jwks)
        signers = JWTKeyCollection()
        await signers.add(rsa: rsa, digestAlgorithm: .sha256, kid: "rsa-1")
        await signers.add(ecdsa: ec, kid: "ec-1")
        strangers = JWTKeyCollection()
        await strangers.add(ecdsa: ES256PrivateKey(), kid: "ec-1")  // the published kid, another key
        await strangers.add(ecdsa: ES256PrivateKey(), kid: "ec-9")  // a kid nobody published
    }

    public typealias Claims = IDTokenClaims

    /// Claims for `subject` valid from `now` for an hour, from this provider to its audience.
    public static func claims(subject: String, now: Date, email: String? = nil, verified: Bool = true, name: String? = nil) -> Claims {
        Claims(
            iss: IssuerClaim(value: issuer), sub: SubjectClaim(value: subject), aud: AudienceClaim(value: [audience]),
            exp: ExpirationClaim(value: now.addingTimeInterval(3600)), nbf: NotBeforeClaim(value: now.addingTimeInterval(-60)),
            email: email, email_verified: email == nil ? nil : BoolClaim(value: verified), name: name)
    }

    /// A token signed with the published key `kid` (`rsa-1` or `ec-1`).
    public func token(_ claims: Claims, kid: String = "rsa-1") async throws -> String {
        try await signers.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// A token signed with an unpublished key, under the published kid `ec-1` (a bad
    /// signature) or the unknown kid `ec-9`.
    public func forged(_ claims: Claims, kid: String) async throws -> String {
        try await strangers.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// A token with `"alg": "none"` and no signature.
    public static func unsigned(_ claims: Claims) throws -> String {
        let header = base64URL(Data(#"{"alg":"none","typ":"JWT","kid":"rsa-1"}"#.utf8))
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        return "\(header).\(base64URL(try encoder.encode(claims)))."
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    struct ProviderError: Error {}
}
