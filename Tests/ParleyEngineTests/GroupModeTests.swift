import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// A group's modes, as IRC's channel modes map onto them: bans, a key, a member limit,
/// moderation with voiced members, private groups.
@Suite(.timeLimit(.minutes(10))) struct GroupModeTests {
    @Test(arguments: StoreKind.all) func bansKeepAHandleOutUntilLifted(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let group = try await alice.createGroup(handle: "club", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "club")
        // A handle nobody holds yet can be banned too, as IRC bans a nick.
        try await alice.ban(handle: "@Mallory", from: group.id)
        try await alice.ban(handle: "bob", from: group.id)
        #expect(try await alice.members(chat: group.id).map(\.user.handle) == ["alice"], "a banned member is removed")
        #expect(try await alice.bans(in: group.id).sorted() == ["bob", "mallory"])
        await expectError(.banned) { try await bob.joinGroup(handle: "club") }
        await expectError(.banned) { try await alice.invite(user: try await bob.me().id, to: group.id) }
        let code = try await alice.createInvite(chat: group.id, maxUses: nil, expiresIn: nil).code
        await expectError(.banned) { try await bob.join(invite: code) }
        await expectError(.notMember) { try await bob.ban(handle: "alice", from: group.id) }
        let mallory = try await world.signUp("mallory")
        await expectError(.banned) { try await mallory.joinGroup(handle: "club") }

        try await alice.unban(handle: "bob", from: group.id)
        _ = try await bob.joinGroup(handle: "club")
        await expectError(.invalidArgument) { try await alice.unban(handle: "bob", from: group.id) }
        await expectError(.forbidden) { try await bob.ban(handle: "alice", from: group.id) }
        #expect(try await alice.bans(in: group.id) == ["mallory"])
    }

    /// IRC's INVITE: an invitation only its invitee can use, by joining the group by
    /// handle, past its privacy, key and limit but never past a ban; used once.
    @Test(arguments: StoreKind.all) func anInvitationLetsItsInviteeAloneIntoAPrivateGroup(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let (bobID, carolID) = (try await bob.me().id, try await carol.me().id)
        let group = try await alice.createGroup(handle: "inner", title: nil, isPublic: false)
        _ = try await alice.setGroupRules(in: group.id, GroupRulesChange(memberLimit: 1, key: "k3y"))
        await expectError(.privateGroup) { try await bob.joinGroup(handle: "inner") }
        await expectError(.unknownChat) { try await bob.sendInvite(to: carolID, chat: group.id) }

        let events = EventRecorder(bob)
        let invitation = try await alice.sendInvite(to: bobID, chat: group.id)
        #expect(invitation.forUser == bobID && invitation.usesLeft == 1)
        let notice = await events.first { if case .invited = $0 { true } else { false } }
        guard case .invited(let invited) = notice else { throw ParleyError(.unknownChat, "no invited event") }
        #expect(invited.chat.id == group.id && invited.by.handle == "alice" && invited.code == invitation.code)
        #expect(try await bob.invitations().map(\.chat.id) == [group.id])
        #expect(try await carol.invitations().isEmpty)
        await expectError(.invalidInvite) { try await carol.join(invite: invitation.code) }
        await expectError(.privateGroup) { try await carol.joinGroup(handle: "inner") }

        // Private, keyed and full: the invitation lets bob in all the same, once.
        _ = try await bob.joinGroup(handle: "#inner")
        #expect(try await alice.members(chat: group.id).count == 2)
        #expect(try await bob.invitations().isEmpty)
        await expectError(.alreadyMember) { try await alice.sendInvite(to: bobID, chat: group.id) }
        try await bob.leave(chat: group.id)
        await expectError(.privateGroup) { try await bob.joinGroup(handle: "inner") }

        // Members may invite to a public group; a private one takes its owner or admins.
        try await alice.invite(user: carolID, to: group.id)
        await expectError(.forbidden) { try await carol.sendInvite(to: bobID, chat: group.id) }
        // A ban outweighs an invitation.
        _ = try await alice.sendInvite(to: bobID, chat: group.id)
        try await alice.ban(handle: "bob", from: group.id)
        await expectError(.banned) { try await bob.joinGroup(handle: "inner") }
        await expectError(.banned) { try await alice.sendInvite(to: bobID, chat: group.id) }
    }

    @Test(arguments: StoreKind.all) func aTopicKeepsWhoSetItAndWhen(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "news", title: nil, isPublic: true)
        #expect(group.topicSetBy == nil && group.topicSetAt == nil)
        let when = world.clock.now
        _ = try await alice.setTopic("today", in: group.id)
        let chat = try await alice.chat(group.id)
        #expect(chat.topic == "today" && chat.topicSetBy == "alice")
        // Kept to the millisecond.
        #expect(abs(try #require(chat.topicSetAt).timeIntervalSince(when)) < 0.001)
    }

    @Test(arguments: StoreKind.all) func aKeyALimitAndModeration(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let group = try await alice.createGroup(handle: "news", title: nil, isPublic: true)

        await expectError(.invalidArgument) { try await alice.setGroupRules(in: group.id, GroupRulesChange(key: "has space")) }
        await expectError(.invalidArgument) { try await alice.setGroupRules(in: group.id, GroupRulesChange(memberLimit: -1)) }
        await expectError(.forbidden) {
            _ = try await bob.joinGroup(handle: "news")
            return try await bob.setGroupRules(in: group.id, GroupRulesChange(moderated: true))
        }
        let keyed = try await alice.setGroupRules(in: group.id, GroupRulesChange(memberLimit: 2, key: "s3cret"))
        #expect(keyed.keyed && keyed.memberLimit == 2)
        await expectError(.badKey) { try await carol.joinGroup(handle: "news") }
        await expectError(.badKey) { try await carol.joinGroup(handle: "news", key: "wrong") }
        await expectError(.groupFull) { try await carol.joinGroup(handle: "news", key: "s3cret") }
        let open = try await alice.setGroupRules(in: group.id, GroupRulesChange(memberLimit: 0, key: ""))
        #expect(!open.keyed && open.memberLimit == nil)
        _ = try await carol.joinGroup(handle: "news")

        _ = try await alice.setGroupRules(in: group.id, GroupRulesChange(moderated: true))
        await expectError(.moderated) { try await bob.sendMessage(to: .chat(group.id), text: "may I?", clientID: nil) }
        _ = try await alice.sendMessage(to: .chat(group.id), text: "the owner posts", clientID: nil)
        try await alice.setRole(.voiced, for: try await bob.me().id, in: group.id)
        _ = try await bob.sendMessage(to: .chat(group.id), text: "voiced now", clientID: nil)
        await expectError(.forbidden) { try await bob.setRole(.voiced, for: try await carol.me().id, in: group.id) }
        #expect(try await alice.members(chat: group.id).first { $0.user.handle == "bob" }?.role == .voiced)

        let hidden = try await alice.setGroupRules(in: group.id, GroupRulesChange(isPublic: false))
        #expect(!hidden.isPublic)
        let dave = try await world.signUp("dave")
        await expectError(.privateGroup) { try await dave.joinGroup(handle: "news") }
    }
}
