public import Foundation
import Logging
@_exported public import ParleyBots
import ParleyClient
@_exported public import ParleyCore
import ParleyEngine
import ParleySQLite
import ParleyShell
import ServiceLifecycle
import UnixSignals

/// Runs one Swift bot (a type conforming to `Bot`) the way `parley bot` runs a plugin,
/// so that a bot author's program is the bot and one line:
///
/// ```swift
/// import ParleyBot
///
/// struct Echo: Bot { … }
/// await BotRunner.main(Echo())   // --as @echo [--server ws://HOST:PORT] [--data DIR]
/// ```
///
/// Against a server, the bot signs in through the folder `parley --server URL` keeps
/// for that server in the data folder (its first run makes the bot account as the user
/// signed in there); without `--server`, on the embedded database in the data folder.
/// Its state (`BotContext.state`) is kept beside, so it survives restarts. Ctrl-C or
/// SIGTERM stops it, closing what it used in reverse order.
public enum BotRunner {
    /// What the command line asks for.
    public struct Options: Sendable {
        public var handle: String
        public var server: String?
        public var data: URL

        public init(handle: String, server: String?, data: URL) {
            self.handle = handle
            self.server = server
            self.data = data
        }
    }

    /// Reads `--as @HANDLE [--server URL] [--data DIR]`; nil (and a usage line) for
    /// `--help` or a command line without `--as`.
    public static func options(_ arguments: [String] = CommandLine.arguments) -> Options? {
        func option(_ name: String) -> String? {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
            return arguments[index + 1]
        }
        guard let handle = option("--as"), !arguments.contains("--help") else { return nil }
        let data = option("--data") ?? FileManager.default.temporaryDirectory.appendingPathComponent("parley-bot").path
        return Options(handle: handle, server: option("--server"), data: URL(fileURLWithPath: data))
    }

    /// Runs `bot` with the process's command line, and exits: 0 when stopped, 64 for a
    /// command line it cannot use, 1 when the bot cannot run (the reason on stderr).
    public static func main(_ bot: some Bot) async -> Never {
        let name = URL(fileURLWithPath: CommandLine.arguments.first ?? "bot").lastPathComponent
        guard let options = options() else {
            print("usage: \(name) --as @HANDLE [--server ws://HOST:PORT] [--data DIR]")
            print("The first run makes the bot account through the user signed in with parley in the same data folder.")
            exit(CommandLine.arguments.contains("--help") ? 0 : 64)
        }
        do {
            try await run(bot, options) { FileHandle.standardError.write(Data("\($0)\n".utf8)) }
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("\(name): \((error as? ParleyError)?.description ?? "\(error)")\n".utf8))
            exit(1)
        }
    }

    /// Runs `bot` until Ctrl-C or SIGTERM; `log` gets what the host says.
    public static func run(_ bot: some Bot, _ options: Options, log: @escaping @Sendable (String) -> Void) async throws {
        try FileManager.default.createDirectory(at: options.data, withIntermediateDirectories: true)
        let connect: @Sendable (String) async throws -> any ChatService
        let clientFolder: URL
        var services: [any Service] = []
        if let server = options.server {
            let url = RemoteChatService.socketURL(server)
            clientFolder = try Shell.clientFolder(data: options.data, server: url)
            connect = { name in
                // The connection keeps its outbox there: a send queued without one was lost.
                let folder = clientFolder.appendingPathComponent("bots").appendingPathComponent(name)
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                return RemoteChatService(url: url, folder: folder)
            }
        } else {
            let store = try SQLiteChatStore(path: options.data.appendingPathComponent("parley.sqlite").path)
            let engine = ChatEngine(store: store)
            clientFolder = options.data
            connect = { _ in engine.connect() }
            services.append(ClosingService("database") { try store.close() })
        }
        var runtime = Shell.botRuntime(
            folder: clientFolder, state: try BotStateStore(in: clientFolder), connect: connect, userToken: { nil },
            log: { log("[\($0)] \($1)") }, notify: log)
        let owner = try await connect("owner")
        runtime.owner = Shell.savedUser(on: owner, folder: clientFolder)
        let host = BotHost(runtime: runtime)
        let state = runtime.state
        services.append(ClosingService("bot state") { try state.close() })
        services.append(ClosingService("owner's connection") { await owner.close() })
        let handle = options.handle
        services.append(
            BotHostService(host: host) { host in
                let info = try await host.load(bot: bot, as: handle)
                log("\(bot.hello.name ?? "the bot") runs as @\(info.user); Ctrl-C stops it")
            })
        let group = ServiceGroup(
            configuration: .init(
                services: services, gracefulShutdownSignals: [.sigint, .sigterm],
                logger: Logger(label: "bot", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await group.run()
    }
}

/// The bot host's state, kept in the data folder's `bots.sqlite`: the runner says where.
extension BotStateStore: BotState {}
