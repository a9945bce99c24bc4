import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct GroupTests {
    @Test(arguments: StoreKind.all) func creatorOwnsANewGroupAndHandlesAreChecked(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "#swift-on-linux", title: "Swift on Linux", isPublic: true)
        #expect(group.handle == "swift-on-linux")
        #expect(group.title == "Swift on Linux")
        #expect(try await alice.members(chat: group.id).map(\.role) == [.owner])
        for bad in ["#a", "#with space", "#" + String(repeating: "x", count: 33), "#ünï", "#comma,", "#co:lon"] {
            await expectError(.invalidHandle) { try await alice.createGroup(handle: bad, title: nil, isPublic: true) }
        }
        // What IRC channel names commonly hold; case folds, as on IRC.
        #expect(try await alice.createGroup(handle: "#Under_score.v2", title: nil, isPublic: true).handle == "under_score.v2")
        await expectError(.handleTaken) { try await alice.createGroup(handle: "Swift-On-Linux", title: nil, isPublic: true) }
        await expectError(.invalidName) { try await alice.createGroup(handle: "ok", title: "bad\u{1B}title", isPublic: true) }
        #expect(try await alice.groups().compactMap(\.handle).sorted() == ["swift-on-linux", "under_score.v2"])
    }

    @Test(arguments: StoreKind.all) func joinByHandleOnlyForPublicGroups(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let aliceEvents = EventRecorder(alice)
        _ = try await alice.createGroup(handle: "open", title: nil, isPublic: true)
        _ = try await alice.createGroup(handle: "closed", title: nil, isPublic: false)
        let joined = try await bob.joinGroup(handle: "#open")
        #expect(try await bob.members(chat: joined.id).count == 2)
        #expect(await aliceEvents.first { if case .memberJoined(let c) = $0 { c.user.handle == "bob" } else { false } } != nil)
        await expectError(.alreadyMember) { try await bob.joinGroup(handle: "open") }
        await expectError(.privateGroup) { try await bob.joinGroup(handle: "closed") }
        await expectError(.unknownGroup) { try await bob.joinGroup(handle: "nowhere") }
        await expectError(.privateGroup) { try await bob.group(handle: "closed") }
        #expect(try await bob.groups().map(\.handle) == ["open"])
    }

    @Test(arguments: StoreKind.all) func invitingAUserMakesThemAMemberAndTellsThem(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let bobEvents = EventRecorder(bob)
        let group = try await alice.createGroup(handle: "club", title: nil, isPublic: false)
        let bobID = try await bob.me().id
        try await alice.invite(user: bobID, to: group.id)
        let told = await bobEvents.first { if case .memberJoined(let c) = $0 { c.user.id == bobID } else { false } }
        guard case .memberJoined(let change) = told else {
            Issue.record("bob was not told")
            return
        }
        #expect(change.by?.handle == "alice")
        #expect(try await bob.groups().map(\.handle) == ["club"])
        await expectError(.alreadyMember) { try await alice.invite(user: bobID, to: group.id) }
        await expectError(.unknownUser) { try await alice.invite(user: UserID(404), to: group.id) }
    }

    @Test(arguments: StoreKind.all) func inviteLinksAreUnguessableLimitedAndRevocable(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "club", title: nil, isPublic: false)
        let invite = try await alice.createInvite(chat: group.id, maxUses: 2, expiresIn: .seconds(3600))
        #expect(invite.code.count >= 26)  // 26 base32 characters = 130 bits
        #expect(invite.link == "parley://join/\(invite.code)")
        let other = try await alice.createInvite(chat: group.id, maxUses: nil, expiresIn: nil)
        #expect(other.code != invite.code)

        let bob = try await world.signUp("bob")
        #expect(try await bob.join(invite: invite.link).id == group.id)
        await expectError(.alreadyMember) { try await bob.join(invite: invite.code) }
        let carol = try await world.signUp("carol")
        _ = try await carol.join(invite: invite.code)
        let dave = try await world.signUp("dave")
        await expectError(.inviteUsedUp) { try await dave.join(invite: invite.code) }
        await expectError(.invalidInvite) { try await dave.join(invite: "parley://join/doesnotexist") }

        let expiring = try await alice.createInvite(chat: group.id, maxUses: nil, expiresIn: .seconds(60))
        world.clock.advance(by: .seconds(61))
        await expectError(.inviteExpired) { try await dave.join(invite: expiring.code) }

        try await alice.revokeInvite(code: other.code)
        await expectError(.inviteRevoked) { try await dave.join(invite: other.link) }
        await expectError(.invalidArgument) { try await alice.createInvite(chat: group.id, maxUses: 0, expiresIn: nil) }
        await expectError(.invalidArgument) { try await alice.createInvite(chat: group.id, maxUses: nil, expiresIn: .seconds(-1)) }
        #expect(try await alice.members(chat: group.id).map(\.user.handle) == ["alice", "bob", "carol"])
    }

    /// The engine checks an invite; the store takes its use atomically: two people
    /// joining at once with its last use get one member and one `invite_used_up`.
    @Test(arguments: StoreKind.all) func theLastUseOfAnInviteAdmitsOneOfTwoAtOnce(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "tight", title: nil, isPublic: false)
        let invite = try await alice.createInvite(chat: group.id, maxUses: 1, expiresIn: nil)
        let (bob, carol) = (try await world.signUp("bob"), try await world.signUp("carol"))
        @Sendable func attempt(_ session: EngineSession) async -> ErrorCode? {
            await errorCode { try await session.join(invite: invite.code) }
        }
        async let first = attempt(bob)
        async let second = attempt(carol)
        let outcomes = await [first, second]
        #expect(outcomes.filter { $0 == nil }.count == 1 && outcomes.compactMap { $0 } == [ErrorCode.inviteUsedUp], "\(outcomes)")
        #expect(try await alice.members(chat: group.id).count == 2, "the one who lost the race was not added")
    }

    @Test(arguments: StoreKind.all) func anOwnerLeavingHandsOverToTheOldestAdminElseOldestMember(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let owner = try await world.signUp("owner")
        let group = try await owner.createGroup(handle: "relay", title: nil, isPublic: true)
        let first = try await world.signUp("first")
        _ = try await first.joinGroup(handle: "relay")
        world.clock.advance(by: .seconds(1))
        let second = try await world.signUp("second")
        _ = try await second.joinGroup(handle: "relay")
        world.clock.advance(by: .seconds(1))
        let third = try await world.signUp("third")
        _ = try await third.joinGroup(handle: "relay")
        try await owner.setRole(.admin, for: try await third.me().id, in: group.id)
        let events = EventRecorder(first)
        try await owner.leave(chat: group.id)
        var roles = Dictionary(uniqueKeysWithValues: try await first.members(chat: group.id).map { ($0.user.handle, $0.role) })
        #expect(roles == ["first": .member, "second": .member, "third": .owner])
        #expect(await events.first { if case .memberLeft(let c) = $0 { c.user.handle == "owner" } else { false } } != nil)
        // With no admin left, the oldest member takes over.
        try await third.leave(chat: group.id)
        roles = Dictionary(uniqueKeysWithValues: try await first.members(chat: group.id).map { ($0.user.handle, $0.role) })
        #expect(roles == ["first": .owner, "second": .member])
        await expectError(.notMember) { try await third.leave(chat: group.id) }
        #expect(try await third.groups().isEmpty)
    }

    @Test(arguments: StoreKind.all) func ownersAndAdminsManageMembers(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let owner = try await world.signUp("owner")
        let group = try await owner.createGroup(handle: "crew", title: nil, isPublic: true)
        let admin = try await world.signUp("ada")
        let member = try await world.signUp("member")
        let extra = try await world.signUp("extra")
        for session in [admin, member, extra] { _ = try await session.joinGroup(handle: "crew") }
        let adminID = try await admin.me().id
        let memberID = try await member.me().id
        let extraID = try await extra.me().id
        let ownerID = try await owner.me().id
        let extraEvents = EventRecorder(extra)

        try await owner.setRole(.admin, for: adminID, in: group.id)
        await expectError(.forbidden) { try await member.kick(user: extraID, from: group.id) }
        await expectError(.forbidden) { try await member.setRole(.admin, for: extraID, in: group.id) }
        await expectError(.forbidden) { try await admin.kick(user: ownerID, from: group.id) }
        await expectError(.forbidden) { try await admin.setRole(.member, for: ownerID, in: group.id) }
        await expectError(.invalidArgument) { try await admin.kick(user: adminID, from: group.id) }

        try await admin.kick(user: extraID, from: group.id)
        #expect(await extraEvents.first { if case .memberKicked = $0 { true } else { false } } != nil)
        await expectError(.notMember) { try await extra.history(chat: group.id, limit: 10, before: nil) }
        await expectError(.notMember) { try await admin.kick(user: extraID, from: group.id) }

        try await admin.setRole(.admin, for: memberID, in: group.id)
        await expectError(.forbidden) { try await admin.kick(user: memberID, from: group.id) }
        try await owner.setRole(.member, for: memberID, in: group.id)
        // Handing over ownership makes the old owner an admin.
        try await owner.setRole(.owner, for: adminID, in: group.id)
        let roles = Dictionary(uniqueKeysWithValues: try await owner.members(chat: group.id).map { ($0.user.handle, $0.role) })
        #expect(roles == ["owner": .admin, "ada": .owner, "member": .member])
    }
}
