// A Swift bot built on the `Bot` protocol, run in-process by a `BotHost`:
//
//   swift run parley-example-bot --as @tally --server ws://127.0.0.1:7878 [--data DIR]
//   swift run parley-example-bot --as @tally --data DIR        (embedded database)
//
// It counts the messages of each chat it is in (kept with the host's state, so the
// counts survive restarts), answers "!tally" with the count, and greets newcomers.
import Foundation
import Logging
import ParleyBots
import ParleyClient
import ParleyCore
import ParleyEngine
import ParleySQLite
import ParleyShell
import ParleyStore
import ServiceLifecycle
import UnixSignals

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

func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

guard let handle = option("--as"), !CommandLine.arguments.contains("--help") else {
    print("usage: parley-example-bot --as @HANDLE [--server ws://HOST:PORT] [--data DIR]")
    print("The first run makes the bot account through the user signed in with parley in the same data folder.")
    exit(CommandLine.arguments.contains("--help") ? 0 : 64)
}
let folder = URL(
    fileURLWithPath: option("--data") ?? FileManager.default.temporaryDirectory.appendingPathComponent("parley-example-bot").path)
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

let log: @Sendable (String) -> Void = { FileHandle.standardError.write(Data("\($0)\n".utf8)) }

/// Runs the bot until Ctrl-C or SIGTERM, then closes what it used, in reverse order.
func runBot(as handle: String, folder: URL) async throws {
    // Where the bot's state lives, and the user who owns the bot: the data folder itself
    // on the embedded database, or the folder `parley --server URL` keeps for that server.
    let connect: @Sendable (String) async throws -> any ChatService
    let clientFolder: URL
    var services: [any Service] = []
    if let server = option("--server") {
        let url = RemoteChatService.socketURL(server)
        clientFolder = try Shell.clientFolder(data: folder, server: url)
        connect = { name in RemoteChatService(url: url, folder: clientFolder.appendingPathComponent("bots").appendingPathComponent(name)) }
    } else {
        let store = try SQLiteChatStore(path: folder.appendingPathComponent("parley.sqlite").path)
        let engine = ChatEngine(store: store)
        clientFolder = folder
        connect = { _ in engine.connect() }
        services.append(ClosingService("database") { try store.close() })
    }
    var runtime = try Shell.botRuntime(
        folder: clientFolder, connect: connect, userToken: { nil }, log: { log("[\($0)] \($1)") }, notify: log)
    let owner = try await connect("owner")
    runtime.owner = Shell.savedUser(on: owner, folder: clientFolder)
    let host = BotHost(runtime: runtime)
    let state = runtime.state
    services.append(ClosingService("bot state") { try state.close() })
    services.append(ClosingService("owner's connection") { await owner.close() })
    services.append(
        BotHostService(host: host) { host in
            let info = try await host.load(bot: TallyBot(), as: handle)
            log("tally runs as @\(info.user); Ctrl-C stops it")
        })
    let group = ServiceGroup(
        configuration: .init(
            services: services, gracefulShutdownSignals: [.sigint, .sigterm],
            logger: Logger(label: "tally", factory: { _ in SwiftLogNoOpLogHandler() })))
    try await group.run()
}

do {
    try await runBot(as: handle, folder: folder)
} catch {
    log("tally: \((error as? ParleyError)?.description ?? "\(error)")")
    exit(1)
}
