public import Foundation
public import ParleyCore
import Synchronization

/// Runs slash commands as a bot's user (the shell provides one); the result is the
/// command's JSON output.
public protocol BotCommander: Sendable {
    func run(_ line: String) async throws -> [String: JSONValue]
}

/// The guards' numbers. The defaults are the documented ones.
public struct BotLimits: Sendable {
    /// Actions (send, reply, command) a second, and how many may come at once.
    public var actionsPerSecond = 5
    public var burst = 10
    /// Events waiting for a slow plugin before the oldest are dropped.
    public var queueCapacity = 256
    /// Restarts allowed in any minute before a crashing plugin is left stopped.
    public var restartsPerMinute = 5
    /// The first restart waits this long; each further one in the same minute twice as long.
    public var restartBackoff: Duration = .milliseconds(500)
    /// How long a new process may take to say `hello` before it counts as running without one.
    public var helloWait: Duration = .seconds(1)
    /// Between SIGTERM and SIGKILL when a plugin is stopped.
    public var stopGrace: Duration = .seconds(2)
    /// Lines past the rate limit that wait their turn; past this many, a line is dropped
    /// and the plugin told.
    public var actionBacklog = 100
    /// The loop guard: after this many messages in a row from other plugins and bots in
    /// a chat, with no person speaking between, a plugin hears no more of them there
    /// until a person speaks. Two plugins answering each other stop within
    /// `2 × (automatedRun + 1)` messages.
    public var automatedRun = 5
    /// Before a plugin is handed a message from another chat than the last one, the host
    /// waits for its answer to the last: until it has written a line and then been quiet
    /// for `replyQuiet`, or for `replyWait` if it writes nothing. So a `reply` without a
    /// `chat` goes to the chat it answers. A plugin's `"reply_wait": false` turns this off.
    public var replyWait: Duration = .seconds(2)
    public var replyQuiet: Duration = .milliseconds(300)

    public init() {}
}

/// What a host needs from the program around it.
public struct BotRuntime: Sendable {
    /// A new, signed-out connection to the same engine or server; `name` is the bot's,
    /// for a client that keeps files per connection.
    public var connect: @Sendable (_ name: String) async throws -> any ChatService
    /// The signed-in user's session token, for a plugin that acts as that user.
    public var userToken: @Sendable () async -> String?
    /// The signed-in user's connection, which makes a bot account on first use of its
    /// handle; the account then belongs to that user. Nil: no one is signed in here.
    public var owner: @Sendable () async throws -> (any ChatService)? = { nil }
    /// A bot token (`/bots token`) the bots sign in with instead of the data folder's
    /// generated keys; it must belong to the bot `--as` names.
    public var botToken: String?
    /// Where bot accounts' credentials live.
    public var accountsFolder: URL
    /// Where plugins' state is kept: the embedder says.
    public var state: any BotState
    /// Runs slash commands as a bot's user, marking what they send with the `via` given
    /// (the plugin's name, or nil for a bot account); nil when commands are not available.
    public var commander: (@Sendable (any ChatService, User, _ via: String?) -> any BotCommander)?
    /// A plugin's stderr line.
    public var log: @Sendable (_ plugin: String, _ line: String) -> Void
    /// Something a person should see: a crash, a restart, a plugin left stopped.
    public var notify: @Sendable (String) -> Void
    public var limits = BotLimits()
    /// The time schedules follow (a hand-moved one in `parley bot test`).
    public var clock: any BotClock = SystemBotClock()

    public init(
        connect: @escaping @Sendable (String) async throws -> any ChatService, userToken: @escaping @Sendable () async -> String?,
        accountsFolder: URL, state: any BotState, log: @escaping @Sendable (String, String) -> Void,
        notify: @escaping @Sendable (String) -> Void
    ) {
        self.connect = connect
        self.userToken = userToken
        self.accountsFolder = accountsFolder
        self.state = state
        self.log = log
        self.notify = notify
    }
}

/// A loaded plugin as `/plugin list` shows it.
public struct PluginInfo: Sendable, Hashable, Codable {
    public var name: String
    public var path: String
    public var user: String
    public var pid: Int32?
    public var state: String
    public var eventsIn: Int
    public var actionsOut: Int
    public var dropped: Int
    public var restarts: Int
    public var commands: [String]
}

/// Hosts bots: plugin processes speaking JSON lines, and Swift `Bot`s. Each bot gets
/// its own connection, signed in as its own bot account (`as`) or as the shell's user.
///
/// ```swift
/// let host = BotHost(runtime: runtime)
/// let info = try await host.load(path: "plugins/echo.py", arguments: [], as: "echo", name: nil)
/// ```
public actor BotHost {
    let runtime: BotRuntime
    private var plugins: [String: LoadedPlugin] = [:]
    private var order: [String] = []
    /// Commands declared by plugins, readable without waiting (tab completion).
    public nonisolated let declared = DeclaredCommands()
    /// Where the bots' state and cursors are kept (the host's owner closes it).
    public nonisolated var state: any BotState { runtime.state }

    public init(runtime: BotRuntime) {
        self.runtime = runtime
        // A plugin that exits while we write to it must not take the host down.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Starts the executable at `path` as a bot; returns once it is running (and has
    /// said `hello`, if it does). Without `handle` it acts as the signed-in user.
    public func load(path: String, arguments: [String], as handle: String?, name: String?, actionsPerSecond: Int? = nil) async throws
        -> PluginInfo
    {
        let resolved = URL(fileURLWithPath: path).standardizedFileURL.path
        guard FileManager.default.isExecutableFile(atPath: resolved) else {
            let exists = FileManager.default.fileExists(atPath: resolved)
            throw ParleyError(.invalidArgument, exists ? "\(path) is not executable (chmod +x \(path))" : "no such file: \(path)")
        }
        let baseName = name ?? URL(fileURLWithPath: resolved).deletingPathExtension().lastPathComponent
        var limits = runtime.limits
        if let actionsPerSecond {
            guard actionsPerSecond > 0 else { throw ParleyError(.invalidArgument, "--rate is a number of actions a second, above 0") }
            limits.actionsPerSecond = actionsPerSecond
            limits.burst = actionsPerSecond * 2
        }
        return try await add(name: baseName, driver: .process(path: resolved, arguments: arguments), handle: handle, limits: limits)
    }

    /// Runs a Swift bot in-process.
    public func load(bot: any Bot, as handle: String?) async throws -> PluginInfo {
        try await add(name: bot.hello.name ?? "\(type(of: bot))".lowercased(), driver: .swift(bot), handle: handle, limits: runtime.limits)
    }

    private func add(name: String, driver: LoadedPlugin.Driver, handle: String?, limits: BotLimits) async throws -> PluginInfo {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
            throw ParleyError(.invalidArgument, "a plugin name is letters, digits, '-' and '_' (use --name)")
        }
        if plugins[name] != nil {
            throw ParleyError(.invalidArgument, "a plugin named \(name) is already loaded (/plugin reload \(name), or --name another)")
        }
        let plugin = try await LoadedPlugin.start(name: name, driver: driver, handle: handle, limits: limits, host: self)
        plugins[name] = plugin
        order.append(name)
        return await plugin.info()
    }

    public func unload(_ name: String) async throws {
        guard let plugin = plugins.removeValue(forKey: name) else { throw unknown(name) }
        order.removeAll { $0 == name }
        declared.set(name, [])
        // What the bot answers in chats is listed without this plugin's commands.
        await plugin.publishCommands()
        await plugin.stop()
    }

    /// Starts a new process of the plugin; it replaces the old one only once running.
    public func reload(_ name: String) async throws -> PluginInfo {
        guard let plugin = plugins[name] else { throw unknown(name) }
        try await plugin.reload()
        return await plugin.info()
    }

    public func list() async -> [PluginInfo] {
        var infos: [PluginInfo] = []
        for name in order { if let plugin = plugins[name] { infos.append(await plugin.info()) } }
        return infos
    }

    /// Hands a declared command to its plugin; false if no plugin declared it.
    public func invoke(command: String, arguments: String, chat: Chat?, user: UserRef) async -> Bool {
        guard let owner = declared.owner(of: command), let plugin = plugins[owner] else { return false }
        await plugin.enqueue(.command(BotCommandCall(name: command, arguments: arguments, chat: chat, user: user)))
        return true
    }

    /// Stops every plugin (SIGTERM, then SIGKILL after the grace period).
    public func shutdown() async {
        let all = plugins.values
        plugins = [:]
        order = []
        await withTaskGroup(of: Void.self) { group in
            for plugin in all { group.addTask { await plugin.stop() } }
        }
    }

    private func unknown(_ name: String) -> ParleyError {
        ParleyError(.unknownPlugin, "no plugin named \(name) (/plugin list shows them)")
    }
}

/// The commands plugins declared, by plugin.
public final class DeclaredCommands: Sendable {
    private let commands = Mutex<[String: [BotCommand]]>([:])
    /// The user each plugin acts as.
    private let users = Mutex<[String: UserID]>([:])

    func set(_ plugin: String, _ list: [BotCommand], user: UserID? = nil) {
        commands.withLock { $0[plugin] = list.isEmpty ? nil : list }
        users.withLock { $0[plugin] = user }
    }

    /// The commands of every plugin acting as `user`, the first declaration of a name winning.
    func commands(of user: UserID) -> [BotCommand] {
        let plugins = users.withLock { users in users.filter { $0.value == user }.keys.sorted() }
        var seen = Set<String>()
        return commands.withLock { all in plugins.flatMap { all[$0] ?? [] } }.filter { seen.insert($0.name).inserted }
    }

    public var all: [(plugin: String, command: BotCommand)] {
        commands.withLock { all in all.sorted { $0.key < $1.key }.flatMap { entry in entry.value.map { (entry.key, $0) } } }
    }

    public func command(named name: String) -> BotCommand? {
        commands.withLock { all in all.values.lazy.flatMap { $0 }.first { $0.name == name } }
    }

    func owner(of name: String) -> String? {
        commands.withLock { all in all.first { $0.value.contains { $0.name == name } }?.key }
    }
}
