// A Swift bot built on the `Bot` protocol, run in-process by a `BotHost`:
//
//   swift run parley-example-bot --as @tally --server ws://127.0.0.1:7878 [--data DIR]
//   swift run parley-example-bot --as @tally --data DIR        (embedded database)
//
// It counts the messages of each chat it is in (kept with the host's state, so the
// counts survive restarts), answers "!tally" with the count, and greets newcomers.
import Foundation
import ParleyBots
import ParleyClient
import ParleyCore
import ParleyEngine
import ParleyShell
import ParleyStore

struct TallyBot: Bot {
    var hello: BotHello {
        BotHello(name: "tally", events: ["message", "member_joined"], commands: [BotCommand(name: "tally", help: "show this chat's message count")])
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
                try await context.send(to: String(change.chat.id.rawValue), "Hello \(change.user.displayName)! Say !tally to see how chatty we are.")
            default:
                break
            }
        } catch {
            FileHandle.standardError.write(Data("tally: \(error)\n".utf8))
        }
    }
}

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let handle = option("--as"), !CommandLine.arguments.contains("--help") else {
    print("usage: parley-example-bot --as @HANDLE [--server ws://HOST:PORT] [--data DIR]")
    exit(CommandLine.arguments.contains("--help") ? 0 : 64)
}
let folder = URL(fileURLWithPath: option("--data") ?? FileManager.default.temporaryDirectory.appendingPathComponent("parley-example-bot").path)
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

let connect: @Sendable (String) async throws -> any ChatService
if let server = option("--server") {
    let url = RemoteChatService.socketURL(server)
    connect = { name in RemoteChatService(url: url, folder: folder.appendingPathComponent(name)) }
} else {
    let engine = ChatEngine(store: try SQLiteChatStore(path: folder.appendingPathComponent("parley.sqlite").path))
    connect = { _ in engine.connect() }
}
let log: @Sendable (String) -> Void = { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
let runtime = try Shell.botRuntime(folder: folder, connect: connect, userToken: { nil }, log: { log("[\($0)] \($1)") }, notify: log)
let host = BotHost(runtime: runtime)
let info = try await host.load(bot: TallyBot(), as: handle)
log("tally runs as @\(info.user); Ctrl-C stops it")
let stop = SignalWaiter(signals: [SIGINT, SIGTERM])
_ = await stop.wait()
await host.shutdown()
