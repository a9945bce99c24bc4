// A Swift bot built on the `Bot` protocol, run by the ParleyBot library:
//
//   swift run parley-example-bot --as @tally --server ws://127.0.0.1:7878 [--data DIR]
//   swift run parley-example-bot --as @tally --data DIR        (embedded database)
//
// It counts the messages of each chat it is in (kept with the host's state, so the
// counts survive restarts), answers "!tally" with the count, and greets newcomers.
// A bot of your own depends on the package's ParleyBot product and imports it alone.
import Foundation
import ParleyBot

struct TallyBot: Bot {
    var hello: BotHello {
        BotHello(
            name: "tally", events: ["message", "member_joined"],
            commands: [BotCommand(name: "tally", help: "show this chat's message count")])
    }

    func handle(_ event: BotEvent, context: BotContext) async {
        do {
            switch event {
            case .message(let message):
                let key = "count:\(message.chat.id)"
                var count = 0
                if case .number(let stored)? = try await context.state(key) { count = Int(stored) }
                count += 1
                try await context.setState(key, .number(Double(count)))
                if message.message.text.trimmingCharacters(in: .whitespaces) == "!tally" {
                    try await context.reply(to: message, "\(count) messages here since I joined")
                }
            case .memberJoined(let change) where change.chat.kind == .group:
                try await context.send(
                    to: String(change.chat.id.rawValue), "Hello \(change.user.displayName)! Say !tally to see how chatty we are.")
            default:
                break
            }
        } catch {
            FileHandle.standardError.write(Data("tally: \(error)\n".utf8))
        }
    }
}

await BotRunner.main(TallyBot())
