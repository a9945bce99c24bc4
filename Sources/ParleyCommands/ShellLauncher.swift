import ArgumentParser
import Foundation
import ParleyClient
import ParleyCore
import ParleyEngine
import ParleySQLite
import ParleyShell
import ParleyStore
import Synchronization

/// Wires the shell to its service and its input: readline at a terminal, or a script.
struct ShellLauncher {
    let options: ShellOptions
    /// Its input, output and environment: the process's, or a test's in process.
    var console = Console()

    /// Runs the shell on the script read from `descriptor` (or at the terminal when
    /// `scriptName` is nil); returns the exit status.
    func run(scriptName: String?, descriptor: Int32) async throws -> Int32 {
        // The shell trades a little memory for not faulting it back in per batch; the
        // server, which counts its memory per session, keeps glibc's default.
        if console.ownsProcess { Allocator.keepFreedMemory() }
        let folder = try options.dataFolder()
        let environment = console.environment
        let interactive = scriptName == nil
        let onTerminal = console.isTerminal(console.output)
        let style: Output.Style =
            options.json ? .json : (interactive && onTerminal && environment["NO_COLOR"] == nil ? .colour : .plain)
        let output = Output(
            style: style, flushEachWrite: interactive, errorLog: folder.appendingPathComponent("errors.log"), output: console.output,
            errors: console.errors)

        let editorBox = EditorBox()
        // Lines that arrive on their own (a queued message acknowledged) go above the
        // prompt; in a script, out at once, as nothing else may come to flush them.
        let announce: @Sendable (String) -> Void = { line in
            if let editor = editorBox.editor {
                editor.show(line)
            } else {
                output.write(line)
                output.flush()
            }
        }
        let trust = try ServerTrust(checking: options.caFile)
        // The shell, once made, hears when the server ends its session, so its prompt
        // stops naming who was signed in.
        let shellBox = ShellBox()
        let ended: @Sendable () async -> Void = { await shellBox.shell?.sessionEnded() }
        let connect: @Sendable (String) async throws -> ServiceLink = { url in
            try Self.remote(url: url, dataFolder: folder, trust: trust, announce: announce, sessionEnded: ended)
        }

        let link: ServiceLink
        var store: SQLiteChatStore?
        var upkeep: [Task<Void, Never>] = []
        if let server = options.server {
            link = try Self.remote(url: server, dataFolder: folder, trust: trust, announce: announce, sessionEnded: ended)
        } else {
            let opened = try Self.embedded(folder: folder, showCode: announce, identity: try options.identity.provider())
            store = opened.store
            link = opened.link
            upkeep = opened.upkeep
        }
        // The shell, then its background work, then the database: in process as in its own
        // process, where the database must be closed before another opens the folder.
        let status: Int32
        do {
            status = try await session()
        } catch {
            await Self.finish(store: store, upkeep: upkeep)
            throw error
        }
        await Self.finish(store: store, upkeep: upkeep)
        return status

        func session() async throws -> Int32 {

            var settings = Shell.Settings(
                dataFolder: link.folder, output: output, interactive: interactive,
                environment: interactive ? nil : environment, modeDescription: link.description)
            settings.connect = connect
            settings.httpURL = link.httpURL
            if let logDir = options.logDir ?? environment["PARLEY_LOG_DIR"], !logDir.isEmpty {
                settings.logs = try ChatLogs(folder: URL(fileURLWithPath: (logDir as NSString).expandingTildeInPath))
            } else if let saved = ChatLogs.saved(in: link.folder) {
                settings.logs = try ChatLogs(folder: saved)
            }
            let truecolor = ["truecolor", "24bit"].contains(environment["COLORTERM"]?.lowercased() ?? "")
            settings.preview = style == .colour && truecolor && !options.noPreview
            settings.showProgress = style != .json && console.isTerminal(console.errors)
            settings.variables = environment
            var size = winsize()
            if ioctl(console.output, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { settings.terminalColumns = Int(size.ws_col) }
            settings.anotherConnection = link.another
            settings.botState = { try BotStateStore(in: $0) }
            settings.announce = announce
            if interactive, onTerminal { settings.status = { editorBox.editor?.setStatus($0) } }
            settings.readSecret = { prompt in
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async { continuation.resume(returning: Terminal.readLine(prompt: prompt, echo: false)) }
                }
            }
            let shell = Shell(service: link.service, settings: settings)
            shellBox.shell = shell

            guard let scriptName else {
                let notifier = Notifier(command: environment["PARLEY_NOTIFY"], bell: onTerminal)
                return await interact(shell, output: output, folder: folder, editorBox: editorBox, notifier: notifier)
            }
            await shell.start(eventSink: nil)
            var lines = LineReader(descriptor: descriptor)
            var status = await ScriptRunner(name: scriptName, keepGoing: options.keepGoing).run(&lines, shell: shell, output: output)
            if let remote = await shell.connection as? RemoteChatService {
                let waiting = Duration.seconds(options.queueWait ?? 30)
                let left = await remote.drainQueue(offline: waiting)
                if !left.isEmpty {
                    let listed = left.map { "\"" + Sanitizer.line(String($0.text.prefix(40))) + "\"" }.joined(separator: ", ")
                    output.error(
                        ParleyError(
                            .pending,
                            "\(left.count) message\(left.count == 1 ? " is" : "s are") still queued after \(Int(waiting.components.seconds)) s without a connection: \(listed); "
                                + "they stay in the data folder and go the next time parley runs on it"),
                        location: scriptName)
                    output.flush()
                    status = 3
                }
            }
            await shell.stop()
            return status
        }
    }

    /// Ends the upkeep and waits for it, then closes the database on a thread of its own:
    /// closing waits for the database's readers, whose tasks need the threads a
    /// blocking close would hold (in process, several shells end at once).
    private static func finish(store: SQLiteChatStore?, upkeep: [Task<Void, Never>]) async {
        for task in upkeep { task.cancel() }
        for task in upkeep { await task.value }
        guard let store else { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                try? store.close()
                done.resume()
            }
        }
    }

    /// The engine on `parley.sqlite` in the data folder.
    /// Sign-in codes for phones are shown with `showCode` (there is no gateway when embedded).
    static func embedded(
        folder: URL,
        showCode: @escaping @Sendable (String) -> Void = { try? FileHandle.standardError.write(contentsOf: Data(($0 + "\n").utf8)) },
        identity: IdentityProvider? = nil
    ) throws -> (link: ServiceLink, store: SQLiteChatStore, upkeep: [Task<Void, Never>]) {
        let (engine, store) = try DataFolderEngine.open(folder: folder, access: .embedded) {
            $0.codeSender = DevelopmentCodeSender(show: showCode)
            $0.identityProvider = identity
        }
        // A server sweeps uploads no message took up in its upkeep; a shell, at start.
        let sweep = Task.detached { _ = try? await engine.sweepMedia() }
        // Reminders come due while a shell (or `parley bot`) on the folder runs.
        let reminders = Task.detached { await engine.runReminders() }
        let link = ServiceLink(
            service: engine.connect(), folder: folder, description: "embedded (SQLite in the data folder)",
            another: { _ in engine.connect() })
        return (link, store, [sweep, reminders])
    }

    /// A client of the server at `url`; its session and outbox live in a folder of
    /// their own under the data folder, one per server (and one per bot under it).
    /// `announce` hears about this client's connection; `announceBots`, when given,
    /// about each bot's.
    static func remote(
        url: String, dataFolder: URL, trust: ServerTrust, announce: @escaping @Sendable (String) -> Void,
        announceBots: (@Sendable (String) -> Void)? = nil, sessionEnded: (@Sendable () async -> Void)? = nil
    ) throws -> ServiceLink {
        // Several nodes of one service share one session: its folder is the first's.
        let nodes = url.split(separator: ",").map { RemoteChatService.socketURL(String($0)) }
        let socketURL = nodes.joined(separator: ",")
        let folder = try Shell.clientFolder(data: dataFolder, server: nodes.first ?? url)
        let service = RemoteChatService(
            url: socketURL, folder: folder, trust: trust, reconnectWait: .zero, client: "parley/\(Parley.configuration.version) shell",
            onAcknowledged: { message in announce("[sent] seq \(message.seq): \(Sanitizer.line(message.text))") },
            onRejected: { _, error in announce("[not sent] \(error.code): \(Sanitizer.line(error.message))") },
            onChange: { change in
                let line = describe(change, server: socketURL, queued: true)
                switch change {
                case .signedOut, .removed:
                    // Signed out first, so the prompt drawn after the line names no one.
                    Task {
                        await sessionEnded?()
                        announce(line)
                    }
                case .lost, .back: announce(line)
                }
            })
        let another: @Sendable (String) async throws -> any ChatService = { name in
            let botFolder = folder.appendingPathComponent("bots").appendingPathComponent(name)
            try FileManager.default.createDirectory(
                at: botFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return RemoteChatService(
                url: socketURL, folder: botFolder, trust: trust, client: "parley/\(Parley.configuration.version) plugin \(name)",
                onChange: { change in announceBots?("[\(name)] " + describe(change, server: socketURL, queued: false)) })
        }
        // ws://host:port/v1/ws → http://host:port (wss → https).
        let first = nodes.first ?? url
        var http =
            first.hasPrefix("wss://") ? "https://" + first.dropFirst(6) : "http://" + first.dropFirst(first.hasPrefix("ws://") ? 5 : 0)
        if let path = http.range(of: "/v1/ws") { http = String(http[..<path.lowerBound]) }
        return ServiceLink(service: service, folder: folder, description: "client of \(socketURL)", httpURL: http, another: another)
    }

    /// The line a connection change is announced with.
    static func describe(_ change: ConnectionChange, server: String, queued: Bool) -> String {
        switch change {
        case .lost where ProcessStops.continued(within: 60):
            "[connection lost] the shell was stopped, and \(server) let the connection go; reconnecting"
                + (queued ? " (what you send meanwhile is queued)" : "")
        case .lost:
            "[connection lost] \(server) cannot be reached; reconnecting" + (queued ? " (what you send meanwhile is queued)" : "")
        case .back(complete: true):
            "[connection back] \(server)"
        case .back(complete: false):
            "[connection back] \(server); some messages from while you were away may not be shown: /chats and /history have them"
        case .signedOut(let reason):
            "[signed out] \(server) ended this session: \(Sanitizer.line(reason)); /login to sign in again"
        case .removed(let reason):
            "[signed out] \(server) ended this session: \(Sanitizer.line(reason))"
        }
    }

    private func interact(_ shell: Shell, output: Output, folder: URL, editorBox: EditorBox, notifier: Notifier) async -> Int32 {
        ProcessStops.watch()
        await shell.start { event, viewer in
            guard let text = output.render(event, me: viewer.me, myHandle: viewer.handle) else { return }
            let shown = viewer.alert ? notifier.alert(text) : text
            // Before the line editor runs (a reminder told as the session resumes), straight out.
            if let editor = editorBox.editor { editor.show(shown) } else { output.write(shown) }
        }
        let hooks = LineEditor.Hooks(
            execute: { line in
                do {
                    return try await shell.execute(line) == .proceed
                } catch {
                    output.error(ParleyError(error), location: nil)
                    return true
                }
            },
            prompt: { await shell.prompt },
            completions: { word, atStart in shell.completions.candidates(for: word, atLineStart: atStart) },
            typing: { shell.userIsTyping() })
        let editor = LineEditor(historyPath: folder.appendingPathComponent("history").path, hooks: hooks)
        editorBox.editor = editor
        // What the shell knew before the editor ran (the hotlist of the chats' unread
        // messages, filled as it signed back in) is shown from the first prompt.
        await shell.showStatus()
        output.note("Parley \(Parley.configuration.version) — /help for commands, Ctrl-D to quit")
        await editor.run()
        await shell.stop()
        return 0
    }
}

/// Gets the user's attention for a mention or a direct message from another chat: the
/// terminal's bell, or the command in `PARLEY_NOTIFY` (such as `notify-send Parley`),
/// run with the line as its last argument.
struct Notifier: Sendable {
    var command: String?
    var bell: Bool

    /// The line to show: with a bell after it, unless a command notifies instead.
    func alert(_ line: String) -> String {
        guard let command, !command.trimmingCharacters(in: .whitespaces).isEmpty else { return bell ? line + "\u{07}" : line }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The line is an argument, never part of the command: nothing in it is run.
        process.arguments = ["-c", command + " \"$1\"", "parley-notify", Self.plain(line)]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
        return line
    }

    /// The line without colour codes.
    static func plain(_ line: String) -> String {
        line.replacingOccurrences(of: "\u{1B}\\[[0-9;]*m", with: "", options: .regularExpression)
    }
}

/// Lets the event sink reach the editor created after it.
final class EditorBox: @unchecked Sendable {
    var editor: LineEditor?
}

/// The shell, for what happens to its connection before and after it is made.
final class ShellBox: Sendable {
    private let held = Mutex<Shell?>(nil)
    var shell: Shell? {
        get { held.withLock { $0 } }
        set { held.withLock { $0 = newValue } }
    }
}
