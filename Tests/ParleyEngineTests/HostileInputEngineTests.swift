import Foundation
import ParleyCore
import ParleyTesting
import Testing

@testable import ParleyEngine

/// The engine's rules against callers who probe, guess and flood.
@Suite(.timeLimit(.minutes(10))) struct HostileInputEngineTests {
    static let limits = SignInLimits(
        failuresPerAccount: 3, failuresPerAddress: 5, failuresPerAccountPerDay: 6, registrationsPerAddress: 2, window: .seconds(600))

    @Test(arguments: StoreKind.all) func guessesAreLimitedPerAccountAndAddressWithoutLockingTheOwnerOut(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.signInLimits = Self.limits }
        _ = try await world.engine.connect(address: "10.0.0.9").register(
            Registration(email: "alice@example.com", password: TestWorld.password(of: "alice"), handle: "alice"))
        let right = TestWorld.password(of: "alice")
        for _ in 0..<3 {
            await expectError(.badCredentials) {
                try await world.engine.connect(address: "10.0.0.1").signIn(login: "@alice", password: "guess")
            }
        }
        // That address has had its three guesses at alice: even the right password waits
        // there, and the refused call signs nobody in.
        let refused = world.engine.connect(address: "10.0.0.1")
        await expectError(.rateLimited) { try await refused.signIn(login: "@alice", password: right) }
        await expectError(.notSignedIn) { try await refused.me() }
        // From another address, alice signs in.
        _ = try await world.engine.connect(address: "10.0.0.4").signIn(login: "@alice", password: right)
        // Past the account's day (six failures from anywhere), addresses that failed on
        // it may not try again, while one that has not still gets the right password in
        // and a wrong one only spends its own single guess.
        for address in ["10.0.0.2"] {
            for _ in 0..<3 {
                await expectError(.badCredentials) {
                    try await world.engine.connect(address: address).signIn(login: "@alice", password: "guess")
                }
            }
        }
        world.clock.advance(by: .seconds(601))
        await expectError(.rateLimited) { try await world.engine.connect(address: "10.0.0.2").signIn(login: "@alice", password: right) }
        _ = try await world.engine.connect(address: "10.0.0.5").signIn(login: "alice@example.com", password: right)
        await expectError(.badCredentials) {
            try await world.engine.connect(address: "10.0.0.6").signIn(login: "@alice", password: "guess")
        }
        await expectError(.rateLimited) { try await world.engine.connect(address: "10.0.0.6").signIn(login: "@alice", password: right) }
        // Other accounts are not held up, and a day later the account's count is forgiven.
        _ = try await world.signUp("bob")
        _ = try await world.engine.connect(address: "10.0.0.2").signIn(login: "@bob", password: TestWorld.password(of: "bob"))
        world.clock.advance(by: .seconds(24 * 3600))
        _ = try await world.engine.connect(address: "10.0.0.2").signIn(login: "@alice", password: right)
    }

    /// Failures count against the account a login names, however it is spelt: ten
    /// guesses at `@victim` hold back `@VICTIM`, `Victim` and its email from that address
    /// (the right password too), while the owner signs in from another.
    @Test(arguments: StoreKind.all) func guessesCountAgainstTheAccountWhateverTheSpelling(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.signInLimits = SignInLimits() }
        let right = "victim-password-1"
        _ = try await world.engine.connect(address: "10.0.1.9").register(
            Registration(email: "Victim@Example.org", password: right, handle: "Victim"))
        let spellings = ["@victim", "@VICTIM", "Victim", "victim@example.org", "VICTIM@EXAMPLE.ORG"]
        for attempt in 0..<10 {
            let login = spellings[attempt % 2]
            await expectError(.badCredentials) {
                try await world.engine.connect(address: "10.0.1.1").signIn(login: login, password: "guess")
            }
        }
        for login in spellings {
            await expectError(.rateLimited) { try await world.engine.connect(address: "10.0.1.1").signIn(login: login, password: "guess") }
            await expectError(.rateLimited) { try await world.engine.connect(address: "10.0.1.1").signIn(login: login, password: right) }
        }
        _ = try await world.engine.connect(address: "10.0.1.2").signIn(login: "victim@example.org", password: right)
        // A login that names no account counts against its own spelling, folded.
        for _ in 0..<10 {
            await expectError(.badCredentials) {
                try await world.engine.connect(address: "10.0.1.3").signIn(login: "@Nobody", password: "x")
            }
        }
        await expectError(.rateLimited) { try await world.engine.connect(address: "10.0.1.3").signIn(login: "@NOBODY", password: "x") }
    }

    @Test(arguments: StoreKind.all) func creatingGroupsIsLimitedPerUser(_ kind: StoreKind) async throws {
        var limits = Self.limits
        limits.groupsPerUserPerHour = 3
        let world = try await TestWorld(on: kind) { $0.signInLimits = limits }
        let alice = try await world.signUp("alice")
        for name in ["g1", "g2", "g3"] { _ = try await alice.createGroup(handle: name, title: nil, isPublic: true) }
        await expectError(.rateLimited) { try await alice.createGroup(handle: "g4", title: nil, isPublic: true) }
        await expectError(.unknownGroup) { try await alice.group(handle: "g4") }
        let bob = try await world.signUp("bob")
        _ = try await bob.createGroup(handle: "b1", title: nil, isPublic: true)
        world.clock.advance(by: .seconds(3601))
        _ = try await alice.createGroup(handle: "g4", title: nil, isPublic: true)
    }

    @Test(arguments: StoreKind.all) func aControlCharacterInAHandleFindsNobody(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        _ = try await world.signUp("bob")
        _ = try await alice.createGroup(handle: "pubx", title: nil, isPublic: true)
        for name in ["pubx\u{0}", "#pubx\u{0}evil", "pubx\u{1}"] {
            await expectError(.unknownGroup) { try await alice.group(handle: name) }
        }
        for name in ["bob\u{0}", "@bob\u{0}x"] {
            await expectError(.unknownUser) { try await alice.user(handle: name) }
        }
    }

    /// A sign-in to an account that does not exist checks a decoy hash of the same cost,
    /// so the time it takes does not tell which accounts exist.
    @Test func theDecoyHashCostsWhatARealHashCosts() async throws {
        for cost: UInt8 in [4, 6] {
            let hasher = PasswordHasher(cost: cost)
            let real = await hasher.hash("correct horse")
            #expect(hasher.decoyHash().prefix(7) == real.prefix(7), "\(hasher.decoyHash().prefix(7)) vs \(real.prefix(7))")
            #expect(real.hasPrefix(String(format: "$2b$%02d$", cost)))
        }
    }

    @Test(arguments: StoreKind.all) func passwordGuessesAreLimitedPerAddressAcrossAccounts(_ kind: StoreKind) async throws {
        var limits = Self.limits
        limits.registrationsPerAddress = 0
        let world = try await TestWorld(on: kind) { $0.signInLimits = limits }
        for name in ["ann", "ben", "cat"] { _ = try await world.signUp(name) }
        let guesses = ["@ann", "@ben", "@cat", "nobody@example.com", "@ghost"]
        for login in guesses {
            await expectError(.badCredentials) {
                try await world.engine.connect(address: "10.9.9.9").signIn(login: login, password: "wrong-password")
            }
        }
        await expectError(.rateLimited) {
            try await world.engine.connect(address: "10.9.9.9").signIn(login: "@ann", password: TestWorld.password(of: "ann"))
        }
        _ = try await world.engine.connect(address: "10.1.1.1").signIn(login: "@ann", password: TestWorld.password(of: "ann"))
    }

    @Test(arguments: StoreKind.all) func registrationsAreLimitedPerAddressAndARefusalCreatesNoAccount(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.signInLimits = Self.limits }
        for name in ["one", "two"] {
            _ = try await world.engine.connect(address: "10.2.2.2").register(
                Registration(email: "\(name)@example.com", password: "long-enough", handle: name))
        }
        await expectError(.rateLimited) {
            try await world.engine.connect(address: "10.2.2.2").register(
                Registration(email: "three@example.com", password: "long-enough", handle: "three"))
        }
        let witness = try await world.engine.connect(address: "10.3.3.3").register(
            Registration(email: "witness@example.com", password: "long-enough", handle: "witness"))
        let session = world.engine.connect()
        _ = try await session.resume(token: witness.token)
        #expect(try await session.searchUsers("", limit: 10, offset: 0).map(\.handle) == ["one", "two", "witness"])
    }

    @Test(arguments: StoreKind.all) func searchWordsWithControlCharactersOrPastTheLimitAreInvalid(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        await expectError(.invalidArgument) { try await alice.search("deploy\u{0}", in: nil, limit: 10) }
        await expectError(.invalidArgument) { try await alice.search(String(repeating: "deploy ", count: 100), in: nil, limit: 10) }
        #expect(try await alice.search("deploy", in: nil, limit: 10).isEmpty)
    }

    @Test(arguments: StoreKind.all) func anAvatarIsOnlyAnImageOneUploadedOneself(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let file = world.folder.appendingPathComponent("private.png")
        try SampleMedia.png(width: 3, height: 3) { _, _ in [1, 2, 3, 255] }.write(to: file)
        let media = try await bob.uploadMedia(from: file, kind: .image, for: .user(try await alice.me().id), progress: nil)
        _ = try await bob.sendMedia(to: .user(try await alice.me().id), media: media.id, caption: "just for you", clientID: nil)
        // Alice may see it, but making it her avatar would show it to everyone.
        await expectError(.unknownMedia) { try await alice.setAvatar(media.id) }
        await expectError(.unknownMedia) { try await alice.setAvatar("not an id") }
        #expect(try await alice.me().avatar == nil)
        #expect(try await bob.setAvatar(media.id).avatar == media.id)
    }

    @Test(arguments: StoreKind.all) func aViewingChangeIsToldOnlyToMembersOfTheChatViewed(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let open = try await alice.createGroup(handle: "open", title: nil, isPublic: true)
        let secret = try await alice.createGroup(handle: "secret", title: nil, isPublic: false)
        _ = try await bob.joinGroup(handle: "open")
        try await alice.invite(user: try await carol.me().id, to: secret.id)
        let bobEvents = EventRecorder(bob)
        let carolEvents = EventRecorder(carol)
        try await alice.setViewing(open.id)
        try await alice.setViewing(secret.id)
        // A message after the change: once bob has it, he has had every event before it.
        _ = try await alice.sendMessage(to: .chat(open.id), text: "barrier", clientID: nil)
        _ = await bobEvents.messages(count: 1)
        let bobSaw = bobEvents.events.compactMap { if case .presenceChanged(let change) = $0 { change.viewing } else { nil } }
        #expect(bobSaw == [open.id], "bob learns alice left #open, not where she went")
        let bobLeft = bobEvents.events.contains {
            if case .presenceChanged(let change) = $0 { change.viewing == nil && change.online } else { false }
        }
        #expect(bobLeft)
        #expect(await carolEvents.first { if case .presenceChanged(let change) = $0 { change.viewing == secret.id } else { false } } != nil)
    }

    @Test(arguments: StoreKind.all) func expiredSessionsAndCodesArePurged(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.sessionLifetime = .seconds(60) }
        let alice = try await world.engine.connect().register(
            Registration(email: "alice@example.com", password: TestWorld.password(of: "alice"), handle: "alice"))
        #expect(try await world.engine.purgeExpired() == 0)
        world.clock.advance(by: .seconds(61))
        #expect(try await world.engine.purgeExpired() == 1)
        await expectError(.invalidToken) { try await world.engine.connect().resume(token: alice.token) }
    }

    @Test func backlogsForResumingAreBoundedInTotalAndOfflineUsersGoFirst() async throws {
        let bus = InProcessEventBus(backlog: 100, totalBacklog: 150)
        let (live, offline) = (UserID(1), UserID(2))
        _ = await bus.subscribe(live, tokenHash: nil, after: nil) { _ in }
        for number in 1...100 {
            await bus.publish(.chatDeleted(ChatDeleted(chatID: ChatID(Int64(number)))), to: [live, offline], except: nil)
        }
        #expect(bus.backlogSize <= 150)
        let start = EventPosition(epoch: bus.epoch, position: 0)
        let replayed = Shared(0)
        let resumedLive = await bus.subscribe(live, tokenHash: nil, after: start) { _ in replayed.withLock { $0 += 1 } }
        #expect(resumedLive.complete, "the live user's backlog was kept whole")
        #expect(replayed.withLock { $0 } == 100)
        let resumedOffline = await bus.subscribe(offline, tokenHash: nil, after: start) { _ in }
        #expect(!resumedOffline.complete, "the offline user's backlog went, and the resume says so")
        // Someone who was never sent anything and resumes from the latest position misses nothing.
        let current = EventPosition(epoch: bus.epoch, position: bus.position)
        #expect(await bus.subscribe(UserID(3), tokenHash: nil, after: current) { _ in }.complete)
    }

    @Test(arguments: StoreKind.all) func theChatDirectoryKeepsAtMostItsCapacity(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.cachedChats = 4 }
        let alice = try await world.signUp("alice")
        for number in 1...12 {
            let group = try await alice.createGroup(handle: "room\(number)", title: nil, isPublic: true)
            #expect(try await alice.sendMessage(to: .chat(group.id), text: "hi \(number)", clientID: nil).seq == 1)
        }
        #expect(world.engine.cachedChatCount <= 4)
        #expect(try await alice.chats().count == 12)
    }
}
