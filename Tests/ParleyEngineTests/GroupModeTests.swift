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
