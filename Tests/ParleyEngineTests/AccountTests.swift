import Foundation
import GRDB
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct AccountTests {
    @Test(arguments: StoreKind.all) func registerSignsInAndDerivesHandleFromEmail(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let session = world.engine.connect()
        let signedIn = try await session.register(Registration(email: "Alice.Smith+chat@Example.com", password: "correct horse"))
        #expect(signedIn.user.handle == "alice.smith")
        #expect(signedIn.user.email == "alice.smith+chat@example.com")
        #expect(try await session.me().id == signedIn.user.id)
        // A second account from the same local part gets the next free handle.
        let other = world.engine.connect()
        let second = try await other.register(Registration(email: "alice.smith@other.org", password: "correct horse"))
        #expect(second.user.handle == "alice.smith2")
    }

    @Test(arguments: StoreKind.all) func emailAndHandleAreUniqueIgnoringCase(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        _ = try await world.signUp("alice")
        await expectError(.emailTaken) {
            try await world.engine.connect().register(Registration(email: "ALICE@example.com", password: "password1", handle: "other"))
        }
        await expectError(.handleTaken) {
            try await world.engine.connect().register(Registration(email: "new@example.com", password: "password1", handle: "Alice"))
        }
        #expect(try await world.signUp("bob").searchUsers("", limit: 10, offset: 0).count == 2)
    }

    @Test(arguments: StoreKind.all) func badRegistrationsAreRefusedAndStoreNothing(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let cases: [(Registration, ErrorCode)] = [
            (Registration(email: "not-an-email", password: "password1"), .invalidEmail),
            (Registration(email: "a@b", password: "password1"), .invalidEmail),
            (Registration(email: "x@example.com", password: "short"), .invalidPassword),
            (Registration(email: "x@example.com", password: String(repeating: "p", count: 1025)), .invalidPassword),
            (Registration(email: "x@example.com", password: "password1", displayName: ""), .invalidName),
            (Registration(email: "x@example.com", password: "password1", displayName: String(repeating: "n", count: 65)), .invalidName),
            (Registration(email: "x@example.com", password: "password1", displayName: "bell\u{7}"), .invalidName),
            (Registration(email: "x@example.com", password: "password1", handle: "a"), .invalidHandle),
            (Registration(email: "x@example.com", password: "password1", handle: "no spaces"), .invalidHandle),
        ]
        for (registration, code) in cases {
            let session = world.engine.connect()
            await expectError(code) { try await session.register(registration) }
            await expectError(.notSignedIn) { try await session.me() }
        }
        let witness = try await world.signUp("witness")
        #expect(try await witness.searchUsers("", limit: 50, offset: 0).map(\.handle) == ["witness"])
    }

    @Test(arguments: StoreKind.all) func signInByEmailOrHandleAndRefuseWrongPassword(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        _ = try await world.signUp("alice")
        let byEmail = world.engine.connect()
        #expect(try await byEmail.signIn(login: "Alice@Example.com", password: "password-alice").user.handle == "alice")
        let byHandle = world.engine.connect()
        #expect(try await byHandle.signIn(login: "@alice", password: "password-alice").user.handle == "alice")
        await expectError(.badCredentials) { try await world.engine.connect().signIn(login: "@alice", password: "wrong-password") }
        await expectError(.badCredentials) {
            try await world.engine.connect().signIn(login: "nobody@example.com", password: "password-alice")
        }
        await expectError(.alreadySignedIn) { try await byHandle.signIn(login: "@alice", password: "password-alice") }
    }

    /// A passphrase past bcrypt's 72 bytes counts whole: its first 72 bytes alone do
    /// not open the account, and a short password's account is not opened by a long one.
    @Test func aLongPassphraseCountsWhole() async throws {
        let world = try await TestWorld(on: .sqlite)
        let long = String(repeating: "é", count: 100)
        _ = try await world.engine.connect().register(Registration(email: "long@example.com", password: long, handle: "long"))
        #expect(try await world.engine.connect().signIn(login: "@long", password: long).user.handle == "long")
        let first72 = String(decoding: Array(long.utf8).prefix(72), as: UTF8.self)
        await expectError(.badCredentials) { try await world.engine.connect().signIn(login: "@long", password: first72) }
        await expectError(.badCredentials) { try await world.engine.connect().signIn(login: "@long", password: long + "x") }

        let short = String(repeating: "p", count: 72)
        _ = try await world.engine.connect().register(Registration(email: "short@example.com", password: short, handle: "short"))
        await expectError(.badCredentials) { try await world.engine.connect().signIn(login: "@short", password: short + "p") }
        #expect(try await world.engine.connect().signIn(login: "@short", password: short).user.handle == "short")
    }

    @Test func onlyTheTokensHashIsStoredAndItResumesASession() async throws {
        let world = try TestWorld()
        let signedIn = try await world.engine.connect().register(
            Registration(email: "alice@example.com", password: "password-alice", handle: "alice"))
        #expect(signedIn.token.count >= 43)  // 256 bits in base64url
        let stored = try await DatabaseQueue(path: world.databasePath).read { db in
            try Data.fetchAll(db, sql: "SELECT token_hash FROM session")
        }
        #expect(stored.count == 1)
        #expect(stored[0].count == 32)
        #expect(!stored.contains(Data(signedIn.token.utf8)))
        let resumed = world.engine.connect()
        #expect(try await resumed.resume(token: signedIn.token).user.id == signedIn.user.id)
        await expectError(.invalidToken) { try await world.engine.connect().resume(token: "forged") }
    }

    @Test(arguments: StoreKind.all) func sessionsExpire(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let signedIn = try await world.engine.connect().register(Registration(email: "a@example.com", password: "password1"))
        world.clock.advance(by: .seconds(31 * 24 * 3600))
        await expectError(.invalidToken) { try await world.engine.connect().resume(token: signedIn.token) }
    }

    @Test(arguments: StoreKind.all) func signOutRevokesTheToken(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let session = world.engine.connect()
        let signedIn = try await session.register(Registration(email: "a@example.com", password: "password1"))
        try await session.signOut()
        await expectError(.notSignedIn) { try await session.me() }
        await expectError(.invalidToken) { try await world.engine.connect().resume(token: signedIn.token) }
    }

    @Test(arguments: StoreKind.all) func changingThePasswordRevokesOtherSessions(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let first = world.engine.connect()
        _ = try await first.register(Registration(email: "a@example.com", password: "password1", handle: "a1"))
        let second = world.engine.connect()
        let secondSignIn = try await second.signIn(login: "@a1", password: "password1")
        await expectError(.badCredentials) { try await first.changePassword(current: "wrong-one", new: "password2") }
        await expectError(.invalidPassword) { try await first.changePassword(current: "password1", new: "short") }
        try await first.changePassword(current: "password1", new: "password2")
        #expect(try await first.me().handle == "a1")
        await expectError(.invalidToken) { try await world.engine.connect().resume(token: secondSignIn.token) }
        // The other live connection is signed out too (asynchronously).
        // Polled until it happens; the deadline only guards against a hang.
        var signedOut = false
        let deadline = ContinuousClock.now + .seconds(120)
        while !signedOut, ContinuousClock.now < deadline {
            do { _ = try await second.me() } catch { signedOut = true }
            if !signedOut { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(signedOut)
        await expectError(.badCredentials) { try await world.engine.connect().signIn(login: "@a1", password: "password1") }
        _ = try await world.engine.connect().signIn(login: "@a1", password: "password2")
    }

    @Test(arguments: StoreKind.all) func profileNameIsValidated(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        #expect(try await alice.updateProfile(displayName: "  Alice Liddell ").displayName == "Alice Liddell")
        await expectError(.invalidName) { try await alice.updateProfile(displayName: "   ") }
        await expectError(.invalidName) { try await alice.updateProfile(displayName: "\u{1B}[31mred") }
        await expectError(.invalidName) { try await alice.updateProfile(displayName: String(repeating: "x", count: 65)) }
        #expect(try await alice.me().displayName == "Alice Liddell")
    }

    /// Names that pass for another person or for what clients draw are refused: a
    /// confusable spelling of another's name or handle (by Unicode's skeletons), runs of
    /// spaces or spaces of other kinds, the marks clients add, the server's own name. A
    /// small capital (`ᴀlice`) is not a confusable in Unicode's table, so it is not refused.
    @Test(arguments: StoreKind.all) func namesThatPassForAnotherAreRefused(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        _ = try await world.signUp("alice", displayName: "Alice Liddell")
        _ = try await world.signUp("paypal", displayName: "Pay Pal")
        let mallory = try await world.signUp("mallory")
        let before = try await mallory.me().displayName
        let refused = [
            "\u{430}lice Liddell", "ALICE LIDDELL", "Alice Liddell\u{3000}\u{3000}\u{3000}\u{3000}\u{3000}(admin)", "Alice  Liddell",
            "Alice\u{00A0}Liddell", "Release Bot (CI hook)", "CI (hook)", "Mallory (owner)", "Mallory (admin)", "Mallory*", "parley",
            "NickServ", "p\u{430}yp\u{430}l", "\u{430}lice", "Mallory (guest)",
        ]
        for name in refused {
            await expectError(.invalidName) { try await mallory.updateProfile(displayName: name) }
        }
        #expect(try await mallory.me().displayName == before, "nothing changed")
        // A name of one's own, however near, is taken.
        #expect(try await mallory.updateProfile(displayName: "Alicia Lidell").displayName == "Alicia Lidell")
        #expect(try await mallory.updateProfile(displayName: "Mallory O'Brien").displayName == "Mallory O'Brien")

        // Handles and nicks too: a new account's, a bot's, a guest's, a guest's new nick.
        for handle in ["a1ice", "A1ice", "paypa1", "ma11ory", "rnallory"] {
            await expectError(.invalidHandle) { try await world.signUp(handle, displayName: "Someone Else") }
            await expectError(.invalidHandle) {
                try await mallory.createBot(NewBot(handle: handle, displayName: "Helper", password: "helper-pass-1"))
            }
            await expectError(.invalidHandle) { try await world.engine.connect().signInAsGuest(nick: handle) }
        }
        let guest = world.engine.connect()
        _ = try await guest.signInAsGuest(nick: "visitor")
        await expectError(.invalidHandle) { try await guest.renameGuest(to: "a1ice") }
        #expect(try await guest.renameGuest(to: "visitor2").handle == "visitor2")
        // A bot's display name is a name like any other.
        for name in ["\u{430}lice Liddell", "Release Bot (CI hook)"] {
            await expectError(.invalidName) {
                try await mallory.createBot(NewBot(handle: "helper", displayName: name, password: "helper-pass-1"))
            }
        }
        #expect(try await mallory.bots().isEmpty, "no bot was made")
        _ = try await world.signUp("alicia", displayName: "Alicia Lidell")
    }

    @Test(arguments: StoreKind.all) func directorySearchesHandleAndNamePrefixesAndWholeEmailsInPages(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice", displayName: "Alice Liddell")
        _ = try await world.signUp("bob", displayName: "Bob Marley")
        _ = try await world.signUp("carol", displayName: "Carol Lid")
        #expect(try await alice.searchUsers("bo", limit: 10, offset: 0).map(\.handle) == ["bob"])
        #expect(try await alice.searchUsers("lid", limit: 10, offset: 0).map(\.handle) == ["alice", "carol"])
        // An address is found only when given whole, so addresses cannot be enumerated.
        #expect(try await alice.searchUsers("carol@ex", limit: 10, offset: 0).isEmpty)
        #expect(try await alice.searchUsers("c", limit: 10, offset: 0).map(\.handle) == ["carol"])
        #expect(try await alice.searchUsers("Carol@Example.com", limit: 10, offset: 0).map(\.handle) == ["carol"])
        await expectError(.invalidArgument) { try await alice.searchUsers(String(repeating: "a", count: 60_000), limit: 10, offset: 0) }
        await expectError(.invalidArgument) { try await alice.searchUsers("a\u{0}b", limit: 10, offset: 0) }
        #expect(try await alice.searchUsers("%", limit: 10, offset: 0).isEmpty)
        let page1 = try await alice.searchUsers("", limit: 2, offset: 0).map(\.handle)
        let page2 = try await alice.searchUsers("", limit: 2, offset: 2).map(\.handle)
        #expect(page1 == ["alice", "bob"])
        #expect(page2 == ["carol"])
        #expect(try await alice.searchUsers("", limit: 10, offset: 0).allSatisfy { $0.email == nil })
        await expectError(.invalidArgument) { try await alice.searchUsers("", limit: 0, offset: 0) }
    }

    @Test(arguments: StoreKind.all) func whoisShowsAPublicProfile(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        _ = try await world.signUp("bob", displayName: "Bob B")
        let bob = try await alice.user(handle: "@bob")
        #expect(bob.displayName == "Bob B")
        #expect(bob.email == nil)
        await expectError(.unknownUser) { try await alice.user(handle: "@nobody") }
        await expectError(.notSignedIn) { try await world.engine.connect().user(handle: "@bob") }
    }
}
