import Foundation
import ParleyCore
import ParleyEngine
import ParleyStore
import ParleyTesting
import Testing

/// `--registration open|invite|closed`, sign-up codes made by server admins, and bot
/// accounts made and owned by signed-in users.
@Suite(.timeLimit(.minutes(10))) struct RegistrationModeTests {
    static func world(
        _ mode: RegistrationMode, on kind: StoreKind, codes: CapturedCodes = CapturedCodes(), idp: TestIdentityProvider? = nil
    ) async throws -> TestWorld {
        try await TestWorld(on: kind) {
            $0.registration = mode
            $0.admins = ["root"]
            $0.codeSender = codes
            $0.identityProvider = idp?.provider
        }
    }

    static func registration(_ name: String, code: String? = nil) -> Registration {
        Registration(email: "\(name)@example.com", password: TestWorld.password(of: name), handle: name, code: code)
    }

    @Test(arguments: StoreKind.all) func inviteModeTakesOnlyAValidCodeAndEachUseOnce(_ kind: StoreKind) async throws {
        let world = try await Self.world(.invite, on: kind)
        let first = try #require(try await world.engine.firstAdminCode(), "no admin account yet: a code for the first")
        #expect(first.usesLeft == 1 && first.createdBy == nil)
        #expect(try await world.engine.firstAdminCode() == first, "the same code until it is used")
        await expectError(.codeRequired) { try await world.engine.connect().register(Self.registration("eve")) }
        await expectError(.invalidInvite) { try await world.engine.connect().register(Self.registration("eve", code: "nope")) }
        let root = world.engine.connect()
        _ = try await root.register(Self.registration("root", code: first.code))
        await expectError(.inviteUsedUp) { try await world.engine.connect().register(Self.registration("eve", code: first.code)) }
        #expect(try await world.engine.firstAdminCode() == nil, "an admin has an account now")

        let two = try await root.createSignupCode(maxUses: 2, expiresIn: .seconds(3600))
        #expect(try await root.signupCodes().map(\.code) == [two.code])
        _ = try await world.engine.connect().register(Self.registration("bob", code: two.code))
        #expect(try await root.signupCodes().first?.usesLeft == 1)
        // A refused registration spends no use: the handle is taken, so nothing is made.
        await expectError(.handleTaken) {
            try await world.engine.connect().register(
                Registration(email: "bob2@example.com", password: TestWorld.password(of: "bob"), handle: "bob", code: two.code))
        }
        #expect(try await root.signupCodes().first?.usesLeft == 1)
        _ = try await world.engine.connect().register(Self.registration("carol", code: two.code))
        #expect(try await root.signupCodes().isEmpty, "used up")

        let timed = try await root.createSignupCode(maxUses: nil, expiresIn: .seconds(60))
        world.clock.advance(by: .seconds(61))
        await expectError(.inviteExpired) { try await world.engine.connect().register(Self.registration("dave", code: timed.code)) }
        let revoked = try await root.createSignupCode(maxUses: nil, expiresIn: nil)
        try await root.revokeSignupCode(revoked.code)
        await expectError(.inviteRevoked) { try await world.engine.connect().register(Self.registration("dave", code: revoked.code)) }
        #expect(try await root.signupCodes().isEmpty)
    }

    @Test(arguments: StoreKind.all) func onlyServerAdminsManageCodesAndLimitsAreChecked(_ kind: StoreKind) async throws {
        let world = try await Self.world(.invite, on: kind)
        let root = world.engine.connect()
        _ = try await root.register(Self.registration("root", code: try #require(try await world.engine.firstAdminCode()).code))
        let code = try await root.createSignupCode(maxUses: 1, expiresIn: nil)
        let bob = world.engine.connect()
        _ = try await bob.register(Self.registration("bob", code: code.code))
        await expectError(.forbidden) { try await bob.createSignupCode(maxUses: 1, expiresIn: nil) }
        await expectError(.forbidden) { try await bob.signupCodes() }
        await expectError(.forbidden) { try await bob.revokeSignupCode(code.code) }
        await expectError(.notSignedIn) { try await world.engine.connect().createSignupCode(maxUses: 1, expiresIn: nil) }
        for (uses, expiry) in [
            (0, nil), (-1, nil), (Int.max, nil), (1, Duration.zero), (1, Duration.seconds(-5)), (1, Duration.seconds(Int64.max)),
        ] {
            await expectError(.invalidArgument) { try await root.createSignupCode(maxUses: uses, expiresIn: expiry) }
        }
        await expectError(.invalidInvite) { try await root.revokeSignupCode("no-such-code") }
        #expect(try await root.signupCodes().isEmpty, "nothing was made by the refused calls")
    }

    @Test(arguments: StoreKind.all) func aCodeWithOneUseLeftAdmitsOneOfTwoAtOnce(_ kind: StoreKind) async throws {
        let world = try await Self.world(.invite, on: kind)
        let code = try #require(try await world.engine.firstAdminCode())
        @Sendable func attempt(_ name: String) async -> ErrorCode? {
            await errorCode { try await world.engine.connect().register(Self.registration(name, code: code.code)) }
        }
        async let one = attempt("ann")
        async let two = attempt("ben")
        let outcomes = await [one, two]
        #expect(outcomes.filter { $0 == nil }.count == 1, "\(outcomes)")
        #expect(outcomes.compactMap { $0 } == [ErrorCode.inviteUsedUp])
    }

    @Test(arguments: StoreKind.all) func closedModeTakesNoNewAccountsByAnyRoute(_ kind: StoreKind) async throws {
        let codes = CapturedCodes()
        let idp = try await TestIdentityProvider()
        let world = try await TestWorld(on: kind) {
            $0.registration = .closed
            $0.codeSender = codes
            $0.identityProvider = idp.provider
        }
        await expectError(.registrationClosed) { try await world.engine.connect().register(Self.registration("eve")) }
        let phone = world.engine.connect()
        _ = try await phone.requestCode(phone: "+15551230000")
        await expectError(.registrationClosed) {
            try await phone.signIn(phone: "+15551230000", code: try #require(codes.last(for: "+15551230000")))
        }
        let claims = TestIdentityProvider.claims(subject: "sub-9", now: world.clock.now, email: "new@example.com", name: "New")
        await expectError(.registrationClosed) {
            try await world.engine.connect().signIn(idToken: try await idp.token(claims, kid: "rsa-1"))
        }
        #expect(try await world.store.handleExists("eve") == false)
    }

    @Test(arguments: StoreKind.all) func inviteModeLetsExistingAccountsSignInByEveryRoute(_ kind: StoreKind) async throws {
        let codes = CapturedCodes()
        let world = try await Self.world(.invite, on: kind, codes: codes)
        let first = try #require(try await world.engine.firstAdminCode())
        let phone = world.engine.connect()
        _ = try await phone.requestCode(phone: "+15551239999")
        await expectError(.codeRequired) {
            try await phone.signIn(phone: "+15551239999", code: try #require(codes.last(for: "+15551239999")))
        }
        _ = try await world.engine.connect().register(Self.registration("root", code: first.code))
        _ = try await world.engine.connect().signIn(login: "@root", password: TestWorld.password(of: "root"))
    }

    @Test(arguments: StoreKind.all) func botsAreMadeByTheirOwnersWhoeverMayRegister(_ kind: StoreKind) async throws {
        let world = try await Self.world(.invite, on: kind)
        let owner = world.engine.connect()
        _ = try await owner.register(Self.registration("root", code: try #require(try await world.engine.firstAdminCode()).code))
        // Anonymous bot accounts are gone; the owner needs no sign-up code for a bot.
        #expect(try await world.engine.firstAdminCode() == nil)
        let bot = try await owner.createBot(NewBot(handle: "deploy", displayName: "Deploy Bot", password: "bot-password-1"))
        #expect(bot.isBot && bot.owner == "root" && bot.displayName == "Deploy Bot")
        #expect(try await owner.bots().map(\.handle) == ["deploy"])
        #expect(try await owner.user(handle: "deploy").owner == "root", "others see whose bot it is")
        let asBot = world.engine.connect()
        _ = try await asBot.signIn(login: "@deploy", password: "bot-password-1")
        await expectError(.forbidden) { try await asBot.createBot(NewBot(handle: "deploy2", password: "bot-password-1")) }
        await expectError(.notSignedIn) { try await world.engine.connect().createBot(NewBot(handle: "x-bot", password: "bot-password-1")) }
        await expectError(.handleTaken) { try await owner.createBot(NewBot(handle: "deploy", password: "bot-password-1")) }
        await expectError(.invalidHandle) { try await owner.createBot(NewBot(handle: "no spaces", password: "bot-password-1")) }
        await expectError(.invalidPassword) { try await owner.createBot(NewBot(handle: "shorty", password: "x")) }
        for index in 1..<Limits.maxBotsPerOwner {
            _ = try await owner.createBot(NewBot(handle: "bot\(index)", password: "bot-password-1"))
        }
        await expectError(.forbidden) { try await owner.createBot(NewBot(handle: "one-too-many", password: "bot-password-1")) }
        #expect(try await owner.bots().count == Limits.maxBotsPerOwner)
    }
}
