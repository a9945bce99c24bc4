import Foundation
import JWTKit
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct IdentityScriptTests {
    @Test(arguments: ParleyBinary.Mode.allCases) func loginWithAnIDToken(mode: ParleyBinary.Mode) async throws {
        let idp = try await TestIdentityProvider()
        let jwks = FileManager.default.temporaryDirectory.appendingPathComponent("parley-jwks-\(UUID().uuidString).json")
        try idp.provider.jwks.write(to: jwks, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: jwks) }
        let flags = [
            "--oidc-issuer", TestIdentityProvider.issuer, "--oidc-audience", TestIdentityProvider.audience, "--oidc-jwks", jwks.path,
        ]
        let parley = try await ParleyBinary(mode: mode, serverArguments: mode == .server ? flags : [])
        defer { parley.remove() }
        let claims = TestIdentityProvider.claims(subject: "sub-7", now: Date(), email: "sam@example.com", name: "Sam Token")
        var stale = claims
        stale.exp.value = Date().addingTimeInterval(-10)
        let result = try await parley.run(
            """
            /login --id-token-env STALE
            /login --id-token-env TOKEN
            /whoami
            """, arguments: (mode == .embedded ? flags : []) + ["--keep-going"],
            environment: ["TOKEN": try await idp.token(claims, kid: "ec-1"), "STALE": try await idp.token(stale)])
        #expect(result.stderr.contains("error: id_token_expired:"), "\(result.stderr)")
        #expect(result.stdout.contains("Signed in as @sam Sam Token <sam@example.com>"))
        #expect(result.lines.last == "@sam Sam Token <sam@example.com>")
    }
}
