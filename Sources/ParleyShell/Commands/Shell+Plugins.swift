public import Foundation
public import ParleyBots
public import ParleyCore
import Synchronization

extension Shell {
    /// `/plugin load PATH [--as @H] [--name N] [--rate N] [ARGS...]`, `/plugin list`,
    /// `/plugin unload NAME`, `/plugin reload NAME`.
    func plugin(_ input: inout CommandInput) async throws {
        let usage = "/plugin load PATH [--as @HANDLE] [--name NAME] [--rate N] [ARGS...] | list | unload NAME | reload NAME"
        guard let verb = try input.word() else { throw ParleyError(.usage, usage) }
        switch verb {
        case "load":
            let path = try input.required("PATH")
            var handle: String?
            var name: String?
            var rate: Int?
            var arguments: [String] = []
            var passThrough = false
            while let word = try input.word() {
                if passThrough {
                    arguments.append(word)
                } else if word == "--as" {
                    handle = try input.required("a handle after --as")
                } else if word == "--name" {
                    name = try input.required("a name after --name")
                } else if word == "--rate" {
                    let text = try input.required("actions a second after --rate")
                    guard let value = Int(text) else { throw ParleyError(.usage, "--rate takes a number, not '\(text)'") }
                    rate = value
                } else if word == "--" {
                    passThrough = true
                } else {
                    arguments.append(word)
                }
            }
            let host = try botHost()
            let info = try await host.load(path: path, arguments: arguments, as: handle, name: name, actionsPerSecond: rate)
            await refreshCompletions()
            var line = "Loaded plugin \(info.name) (pid \(info.pid.map(String.init) ?? "-")) as @\(Sanitizer.line(info.user))"
            if !info.commands.isEmpty { line += "; commands: " + info.commands.map { "/" + $0 }.joined(separator: " ") }
            output.result("plugin", [line], json: info)
        case "list":
            try noMoreArguments(input)
            let infos = await bots?.list() ?? []
            var lines = infos.isEmpty ? ["No plugins loaded (/plugin load PATH)"] : []
            for info in infos {
                lines.append(
                    "\(info.name)  pid \(info.pid.map(String.init) ?? "-")  \(info.state)  as @\(Sanitizer.line(info.user))  "
                        + "events in \(info.eventsIn)  out \(info.actionsOut)  dropped \(info.dropped)  restarts \(info.restarts)")
            }
            output.result("plugin", lines, json: infos)
        case "unload":
            let name = try input.required("NAME")
            try noMoreArguments(input)
            guard let bots else { throw ParleyError(.unknownPlugin, "no plugin named \(name) (none loaded)") }
            try await bots.unload(name)
            output.result("plugin", ["Unloaded plugin \(name)"], json: ["unloaded": name])
        case "reload":
            let name = try input.required("NAME")
            try noMoreArguments(input)
            guard let bots else { throw ParleyError(.unknownPlugin, "no plugin named \(name) (none loaded)") }
            let info = try await bots.reload(name)
            output.result("plugin", ["Reloaded plugin \(info.name) (pid \(info.pid.map(String.init) ?? "-"))"], json: info)
        default:
            throw ParleyError(.usage, usage)
        }
    }

    /// The plugin host, started on first use.
    func botHost() throws -> BotHost {
        if let bots { return bots }
        guard let another = settings.anotherConnection, let botState = settings.botState else {
            throw ParleyError(.unavailable, "this shell cannot run plugins")
        }
        let folder = settings.dataFolder
        let output = output
        var runtime = Self.botRuntime(
            folder: folder, state: try botState(folder), connect: another, userToken: { SessionFile(folder: folder).load() },
            log: settings.pluginLog ?? PluginLogFile(url: folder.appendingPathComponent("plugins.log")).append,
            notify: settings.announce ?? { output.note($0) })
        runtime.limits = settings.botLimits
        let service = service
        runtime.owner = { service }
        let host = BotHost(runtime: runtime)
        completions.add(pluginCommands: host.declared)
        bots = host
        return host
    }

    /// What a bot host needs, for plugins whose data lives in `folder`: their state
    /// where the caller keeps it, bot accounts in `bots/`, and slash commands run by a
    /// shell of the bot's own.
    public static func botRuntime(
        folder: URL, state: any BotState, connect: @escaping @Sendable (String) async throws -> any ChatService,
        userToken: @escaping @Sendable () async -> String?, log: @escaping @Sendable (String, String) -> Void,
        notify: @escaping @Sendable (String) -> Void
    ) -> BotRuntime {
        var runtime = BotRuntime(
            connect: connect, userToken: userToken, accountsFolder: folder.appendingPathComponent("bots"), state: state, log: log,
            notify: notify)
        runtime.commander = { service, user, via in ShellCommander(service: service, user: user, via: via) }
        return runtime
    }

    /// A bot runtime's `owner` for a program without a shell (`parley bot`, a Swift
    /// bot): `service`, signed in on first use with the session a shell saved in
    /// `folder`; nil when nobody is signed in there.
    public static func savedUser(on service: any ChatService, folder: URL) -> @Sendable () async throws -> (any ChatService)? {
        {
            guard let token = SessionFile(folder: folder).load() else { return nil }
            if (try? await service.me()) == nil { _ = try await service.resume(token: token) }
            return service
        }
    }

    func stopPlugins() async {
        await bots?.shutdown()
        try? bots?.state.close()
        bots = nil
    }

    /// Runs a command a plugin declared; false if none did.
    func invokePluginCommand(_ name: String, arguments: String) async throws -> Bool {
        guard let bots, bots.declared.command(named: name.lowercased()) != nil else { return false }
        let me = try requireMe()
        var chat = current?.chat
        if chat == nil, let peer = current?.peer { chat = try? await service.directChat(with: peer.id) }
        _ = await bots.invoke(command: name.lowercased(), arguments: arguments.trimmingSpaces(), chat: chat, user: me.ref)
        output.result("plugin-command", [], json: ["command": name.lowercased()])
        return true
    }
}

/// Runs a bot's slash commands in a shell of its own, signed in as the bot, and hands
/// back the command's JSON result.
final class ShellCommander: BotCommander {
    private let shell: Shell
    private let user: User
    private let lines: Box

    /// The lines a command wrote.
    final class Box: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        func take() -> [String] {
            lines.withLock { lines in
                defer { lines = [] }
                return lines
            }
        }
    }

    init(service: any ChatService, user: User, via: String?) {
        let lines = Box()
        let output = Output(style: .json) { line in lines.append(line) }
        var settings = Shell.Settings(
            dataFolder: FileManager.default.temporaryDirectory, output: output, interactive: false, environment: nil,
            modeDescription: "bot")
        settings.via = via
        shell = Shell(service: service, settings: settings)
        self.lines = lines
        self.user = user
    }

    func run(_ line: String) async throws -> [String: JSONValue] {
        await shell.attach(signedInAs: user)
        _ = lines.take()
        _ = try await shell.execute(line)
        let written = lines.take()
        let results = written.compactMap { try? JSONValue.parse(Data($0.utf8)) }
        guard let result = results.last(where: { $0["type"] == .string("result") }) else { return [:] }
        return ["command": result["command"] ?? .null, "data": result["data"] ?? .null]
    }
}

/// Appends plugins' stderr lines, with the plugin's name, to a file.
final class PluginLogFile: Sendable {
    private let handle: Mutex<FileHandle?>

    init(url: URL) {
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        let handle = try? FileHandle(forWritingTo: url)
        _ = try? handle?.seekToEnd()
        self.handle = Mutex(handle)
    }

    func append(_ plugin: String, _ line: String) {
        let stamp = Date().formatted(.iso8601)
        handle.withLock { try? $0?.write(contentsOf: Data("\(stamp) [\(plugin)] \(line)\n".utf8)) }
    }
}
