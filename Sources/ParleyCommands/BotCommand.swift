import ArgumentParser
import Foundation
import Logging
import ParleyBots
import ParleyClient
import ParleyCore
import ParleySQLite
import ParleyShell
import ParleyStore
import ServiceLifecycle
import UnixSignals

/// `parley bot`: run plugins headless (`parley bot PATH... --as @HANDLE`, the default),
/// or test one (`parley bot test PLUGIN TRANSCRIPT`).
struct BotCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bot", abstract: "Run bot plugins headless, or test one against a transcript.",
        subcommands: [BotRunCommand.self, BotTestCommand.self], defaultSubcommand: BotRunCommand.self)

    /// `parley --data D --server URL bot …` names them before the subcommand.
    @ParentCommand var parent: Parley
}

/// `parley bot PATH... --as @HANDLE`: plugins without a shell, until SIGTERM or SIGINT.
struct BotRunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run", abstract: "Run bot plugins headless, as one bot account (the default).",
        discussion: """
            Each PATH is a plugin executable (see docs/plugins.md). Logs go to stderr. \
            SIGTERM or SIGINT stops the plugins (SIGTERM, then SIGKILL after a grace period) and exits.
            """)

    @Argument(help: "Plugin executables.")
    var plugins: [String]

    @Option(name: .customLong("as"), help: "The bot account (@HANDLE), created on first use.")
    var handle: String

    @Option(name: .long, help: "Data folder (default: $XDG_DATA_HOME/parley or ~/.local/share/parley).")
    var data: String?

    @Option(
        name: .long,
        help: "Talk to a Parley server (ws://HOST:PORT, or wss://; several nodes comma-separated) instead of the embedded database.")
    var server: String?

    @Option(name: .long, help: ArgumentHelp("Trust a wss:// server whose certificate this CA signed.", valueName: "PEM"))
    var caFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Sign the bot in with the token (/bots token @HANDLE) in this environment variable.", valueName: "VAR"))
    var tokenEnv: String?

    @ParentCommand var bot: BotCommand
    private var parent: Parley { bot.parent }

    func run() async throws {
        guard !plugins.isEmpty else { throw ValidationError("name at least one plugin") }
        let folder = try ShellOptions.folder(data ?? parent.global.data)
        let server = server ?? parent.global.server
        let log: @Sendable (String) -> Void = { line in
            try? FileHandle.standardError.write(contentsOf: Data("\(Date().formatted(.iso8601)) \(line)\n".utf8))
        }
        let link: ServiceLink
        let store: SQLiteChatStore?
        if let server {
            let trust = try ServerTrust(checking: caFile ?? parent.global.caFile)
            link = try ShellLauncher.remote(url: server, dataFolder: folder, trust: trust, announce: log, announceBots: log)
            store = nil
        } else {
            (link, store, _) = try ShellLauncher.embedded(folder: folder)
        }
        var runtime = Shell.botRuntime(
            folder: link.folder, state: try BotStateStore(in: link.folder), connect: link.another, userToken: { nil },
            log: { plugin, line in log("[\(plugin)] \(line)") },
            notify: log)
        // A new bot account is made by the user signed in here (with `parley`), who owns it.
        runtime.owner = Shell.savedUser(on: link.service, folder: link.folder)
        if let tokenEnv {
            guard let token = ProcessInfo.processInfo.environment[tokenEnv], BotToken.isToken(token) else {
                throw ValidationError("$\(tokenEnv) holds no bot token (pbt_…; /bots token @HANDLE makes one)")
            }
            runtime.botToken = token
        }
        let host = BotHost(runtime: runtime)
        // One group: the plugins stop first, then the connection, the bot state and the
        // database, on SIGTERM or SIGINT or when a plugin cannot be loaded.
        let plugins = plugins
        let handle = handle
        let waitForServer = server != nil
        let loader = BotHostService(host: host) { host in
            for path in plugins {
                var delay: Duration = .seconds(1)
                while true {
                    do {
                        let info = try await host.load(path: path, arguments: [], as: handle, name: nil)
                        log("loaded \(info.name) (pid \(info.pid.map(String.init) ?? "-")) as @\(info.user)")
                        break
                    } catch let error as ParleyError where error.code == .unavailable && waitForServer {
                        log("\(error.message); retrying in \(Int(delay.components.seconds)) s")
                        try await Task.sleep(for: delay)
                        delay = min(delay * 2, .seconds(30))
                    }
                }
            }
        }
        var services: [any Service] = []
        if let store { services.append(ClosingService("database") { try store.close() }) }
        let state = runtime.state
        services.append(ClosingService("bot state") { try state.close() })
        services.append(ClosingService("connection") { await link.service.close() })
        services.append(loader)
        let group = ServiceGroup(
            configuration: .init(
                services: services, gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "parley.bot", factory: { _ in SwiftLogNoOpLogHandler() })))
        do {
            try await group.run()
        } catch {
            log("error: \((error as? ParleyError)?.description ?? "\(error)")")
            throw ExitCode(1)
        }
        log("stopped: plugins, then the connection\(store == nil ? "" : ", the bot state and the database")")
    }
}
