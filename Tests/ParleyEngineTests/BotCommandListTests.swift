import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// The commands bots declare for chats, on both stores: only a bot declares them, each
/// is checked, and the members of a chat list those of the bots in it.
@Suite(.timeLimit(.minutes(10))) struct BotCommandListTests {
    @Test(arguments: StoreKind.all) func aBotDeclaresAndMembersList(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let eve = try await world.signUp("eve")
        let dice = try await alice.createBot(NewBot(handle: "dice", displayName: "Dice", password: "dice-pass-123"))
        let bot = world.engine.connect()
        _ = try await bot.signIn(login: "@dice", password: "dice-pass-123")
        let group = try await alice.createGroup(handle: "games", title: nil, isPublic: false)
        try await alice.invite(user: dice.id, to: group.id)

        try await bot.setBotCommands([
            ChatCommand(name: "roll", usage: "!roll NdM", help: "roll dice"),
            ChatCommand(name: "reset", usage: "!reset", help: "forget scores", allow: ["admins", "@Carol"]),
        ])
        let listed = try await alice.chatCommands(in: group.id)
        #expect(listed.map(\.bot.handle) == ["dice"])
        #expect(listed.first?.commands.map(\.name) == ["roll", "reset"])
        #expect(listed.first?.commands.last?.allow == ["admins", "@carol"], "handles are kept lowercase")
        await expectError(.unknownChat) { _ = try await eve.chatCommands(in: group.id) }
        await expectError(.forbidden) { try await alice.setBotCommands([ChatCommand(name: "mine")]) }

        // Each refused, and what was declared stays.
        let refused: [[ChatCommand]] = [
            [ChatCommand(name: "Roll")], [ChatCommand(name: "")], [ChatCommand(name: String(repeating: "a", count: 33))],
            [ChatCommand(name: "a", allow: ["everyone"])], [ChatCommand(name: "a", allow: ["@"])],
            [ChatCommand(name: "a", help: "line\nbreak")], [ChatCommand(name: "a", usage: String(repeating: "u", count: 101))],
            [ChatCommand(name: "a", allow: Array(repeating: "admins", count: 21))], [ChatCommand(name: "a"), ChatCommand(name: "a")],
            (0...50).map { ChatCommand(name: "c\($0)") },
        ]
        for commands in refused {
            await expectError(.invalidArgument) { try await bot.setBotCommands(commands) }
        }
        #expect(try await alice.chatCommands(in: group.id).first?.commands.count == 2)
        // Declaring none takes the bot off the list; leaving the chat does too.
        try await bot.setBotCommands([])
        #expect(try await alice.chatCommands(in: group.id).isEmpty)
        try await bot.setBotCommands([ChatCommand(name: "roll")])
        try await bot.leave(chat: group.id)
        #expect(try await alice.chatCommands(in: group.id).isEmpty)
    }
}
