import ArgumentParser
import Foundation

struct Parley: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley",
        abstract: "Group and direct chat from the terminal.",
        discussion: """
            With no subcommand, starts the shell: readline on a terminal, a script when \
            input is piped. Type /help inside for the commands.
            """,
        version: "0.1.0",
        subcommands: [ShellCommand.self, RunCommand.self, ServeCommand.self, BotCommand.self],
        defaultSubcommand: ShellCommand.self
    )

    /// Shell flags given before the subcommand (`parley --data D run FILE`).
    @OptionGroup var global: ShellOptions

    /// `parley serve --config FILE` reads FILE into the arguments it stands for first.
    static func main() async {
        let arguments: [String]
        do {
            arguments = try ServeConfigFile.expand(Array(CommandLine.arguments.dropFirst()))
        } catch {
            // The file's fault, not the command line's: no usage after it.
            FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
            Foundation.exit(64)
        }
        await main(arguments)
    }
}

/// Flags shared by every way of starting the shell.
struct ShellOptions: ParsableArguments {
    @Option(name: .long, help: "Data folder (default: $XDG_DATA_HOME/parley or ~/.local/share/parley).")
    var data: String?

    @Flag(name: .long, help: "Print one JSON object per line for every result, error and event.")
    var json = false

    @Flag(name: .long, help: "In a script, go on after a failed command (exit status 1 at the end).")
    var keepGoing = false

    @Option(
        name: .long,
        help: "Talk to a Parley server (ws://HOST:PORT, or wss:// for TLS) instead of the embedded database; several nodes comma-separated."
    )
    var server: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "At the end of a script, wait this long without a connection for messages still queued for a server (exit status 3 if some still are).",
            valueName: "SECONDS"))
    var queueWait: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Trust a wss:// server whose certificate this CA (or self-signed certificate) signed, besides the system's.", valueName: "PEM"))
    var caFile: String?

    @Option(name: .long, help: "Load a bot plugin at start (repeatable); as /plugin load PATH.")
    var plugin: [String] = []

    @OptionGroup var identity: IdentityOptions

    @Flag(name: .long, help: "Do not draw image previews (drawn on a terminal whose COLORTERM says truecolor).")
    var noPreview = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write each chat to a plain-text file of its own in DIR as messages come (#swift.2026-11.log; also $PARLEY_LOG_DIR).",
            valueName: "DIR"))
    var logDir: String?

    func validate() throws {
        if let queueWait, !(0...86_400).contains(queueWait) { throw ValidationError("--queue-wait takes 0 to 86400 seconds") }
    }

    /// These options, with any left unset taken from `outer` (given before the subcommand).
    func merged(with outer: ShellOptions) -> ShellOptions {
        var merged = self
        merged.data = data ?? outer.data
        merged.json = json || outer.json
        merged.keepGoing = keepGoing || outer.keepGoing
        merged.server = server ?? outer.server
        merged.queueWait = queueWait ?? outer.queueWait
        merged.caFile = caFile ?? outer.caFile
        merged.plugin = outer.plugin + plugin
        merged.noPreview = noPreview || outer.noPreview
        merged.identity = identity.merged(with: outer.identity)
        return merged
    }

    /// The data folder, created on first use.
    func dataFolder() throws -> URL {
        try Self.folder(data)
    }

    /// The data folder named by `--data`, or the default one; created on first use.
    static func folder(_ data: String?) throws -> URL {
        let environment = Console.current.environment
        let folder: URL
        if let data {
            folder = URL(fileURLWithPath: data)
        } else if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            folder = URL(fileURLWithPath: xdg).appendingPathComponent("parley")
        } else {
            folder = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/parley")
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ValidationError("cannot create the data folder \(folder.path): \(error.localizedDescription)")
        }
        return folder
    }
}

struct ShellCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shell", abstract: "The interactive shell, or a script from standard input.")

    @OptionGroup var local: ShellOptions
    @ParentCommand var parent: Parley
    var options: ShellOptions { local.merged(with: parent.global) }

    func run() async throws {
        let console = Console.current
        let interactive = console.isTerminal(console.input)
        let status = try await ShellLauncher(options: options, console: console).run(
            scriptName: interactive ? nil : "-", descriptor: console.input)
        if status != 0 { throw ExitCode(status) }
    }
}

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run a script of shell commands.")

    @OptionGroup var local: ShellOptions
    @ParentCommand var parent: Parley
    var options: ShellOptions { local.merged(with: parent.global) }

    @Argument(help: "The script to run ('-' for standard input).")
    var file: String

    func run() async throws {
        let console = Console.current
        var descriptor = console.input
        if file != "-" {
            descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw ValidationError("cannot read \(file): \(String(cString: strerror(errno)))") }
        }
        defer { if descriptor != console.input { close(descriptor) } }
        let status = try await ShellLauncher(options: options, console: console).run(scriptName: file, descriptor: descriptor)
        if status != 0 { throw ExitCode(status) }
    }
}
