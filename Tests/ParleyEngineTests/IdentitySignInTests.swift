import Foundation
import JWTKit
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct IdentitySignInTests {
    static func world(_ idp: TestIdentityProvider, on kind: StoreKind) async throws -> TestWorld {
        try await TestWorld(on: kind) { $0.identityProvider = idp.provider }
    }

    @Test(arguments: StoreKind.all, ["rsa-1", "ec-1"])
    func aValidTokenSignsInAndFindsTheSameAccountNextTime(_ kind: StoreKind, kid: String) async throws {
        let idp = try await TestIdentityProvider()
        let world = try await Self.world(idp, on: kind)
        let claims = TestIdentityProvider.claims(subject: "sub-42", now: world.clock.now, email: "Robin@Example.com", name: "Robin Hood")
        let first = try await world.engine.connect().signIn(idToken: try await idp.token(claims, kid: kid))
        #expect(first.user.displayName == "Robin Hood")
        #expect(first.user.email == "robin@example.com")
        #expect(first.user.handle == "robin")
        #expect(!first.needsProfile)
        let again = try await world.engine.connect().signIn(idToken: try await idp.token(claims, kid: kid))
        #expect(again.user.id == first.user.id)
        // An account made from a token has no password to guess.
        await expectError(.badCredentials) { try await world.engine.connect().signIn(login: "@robin", password: "anything at all") }
    }

    @Test(arguments: StoreKind.all) func badTokensAreEachRefusedWithTheirCode(_ kind: StoreKind) async throws {
        let idp = try await TestIdentityProvider()
        let world = try await Self.world(idp, on: kind)
        let now = world.clock.now
        let good = TestIdentityProvider.claims(subject: "sub-1", now: now, email: "x@example.com", name: "X")
        var expired = good
        expired.exp.value = now.addingTimeInterval(-1)
        var early = good
        early.nbf?.value = now.addingTimeInterval(120)
        var otherAudience = good
        otherAudience.aud.value = ["someone-else"]
        var otherIssuer = good
        otherIssuer.iss.value = "https://evil.example.test"
        let cases: [(ErrorCode, String)] = [
            (.idTokenExpired, try await idp.token(expired)),
            (.idTokenNotYetValid, try await idp.token(early, kid: "ec-1")),
            (.wrongAudience, try await idp.token(otherAudience)),
            (.wrongIssuer, try await idp.token(otherIssuer)),
            (.badSignature, try await idp.forged(good, kid: "ec-1")),
            (.unknownKey, try await idp.forged(good, kid: "ec-9")),
            (.invalidIDToken, try TestIdentityProvider.unsigned(good)),
            (.invalidIDToken, "not.a-token"),
            (.invalidIDToken, ""),
        ]
        for (code, token) in cases {
            await expectError(code) { try await world.engine.connect().signIn(idToken: token) }
        }
        // A token whose signature is cut off does not pass either.
        let whole = try await idp.token(good)
        await expectError(.badSignature) { try await world.engine.connect().signIn(idToken: String(whole.dropLast(10))) }
        // Nothing was created by any of them.
        let checker = try await world.signUp("checker")
        #expect(try await checker.searchUsers("x", limit: 10, offset: 0).isEmpty)
    }

    @Test(arguments: StoreKind.all) func anUnverifiedEmailDoesNotTakeOverAnExistingAccount(_ kind: StoreKind) async throws {
        let idp = try await TestIdentityProvider()
        let world = try await Self.world(idp, on: kind)
        let alice = try await world.signUp("alice")
        let aliceID = try await alice.me().id
        let now = world.clock.now

        let unverified = TestIdentityProvider.claims(
            subject: "mallory", now: now, email: "alice@example.com", verified: false, name: "Not Alice")
        let mallory = try await world.engine.connect().signIn(idToken: try await idp.token(unverified))
        #expect(mallory.user.id != aliceID)
        #expect(mallory.user.email == nil)
        #expect(mallory.user.displayName == "Not Alice")

        let verified = TestIdentityProvider.claims(subject: "alice-at-idp", now: now, email: "alice@example.com", verified: true)
        let linked = try await world.engine.connect().signIn(idToken: try await idp.token(verified, kid: "ec-1"))
        #expect(linked.user.id == aliceID)
        // The password still works too, and the link holds for later sign-ins.
        _ = try await world.signIn("alice")
        #expect(try await world.engine.connect().signIn(idToken: try await idp.token(verified)).user.id == aliceID)
    }

    @Test(arguments: StoreKind.all) func withoutAProviderTokensAreNotTaken(_ kind: StoreKind) async throws {
        let idp = try await TestIdentityProvider()
        let world = try await TestWorld(on: kind)
        let token = try await idp.token(TestIdentityProvider.claims(subject: "s", now: world.clock.now))
        await expectError(.unavailable) { try await world.engine.connect().signIn(idToken: token) }
    }
}
