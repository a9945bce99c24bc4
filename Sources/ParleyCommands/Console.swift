import ArgumentParser
import Foundation
import ParleyShell

/// Where the shell reads and writes and the environment it sees: the process's own, or,
/// for a shell run in process (the tests), descriptors and variables of its own.
package struct Console: Sendable {
    package var input: Int32 = STDIN_FILENO
    package var output: Int32 = STDOUT_FILENO
    package var errors: Int32 = STDERR_FILENO
    package var environment = ProcessInfo.processInfo.environment
    /// The process is the shell's alone: it may tune the allocator for itself.
    package var ownsProcess = true

    package init() {}

    /// The console the running command was given: the process's, unless one was set for
    /// a shell run in process.
    @TaskLocal package static var current = Console()

    func isTerminal(_ descriptor: Int32) -> Bool { isatty(descriptor) == 1 }
}

/// The `parley` command line, for the executable and for tests that run it in process.
package enum CommandLineEntry {
    /// What the `parley` binary runs.
    package static func main() async { await Parley.main() }

    /// Runs `parley ARGUMENTS` in this process on `console` and returns its exit status,
    /// if it is the shell or `parley run` (a script); nil for any other command, which
    /// only the binary runs (its signals, its exit).
    package static func runInProcess(_ arguments: [String], console: Console) async -> Int32? {
        let command: any ParsableCommand
        do {
            command = try Parley.parseAsRoot(arguments)
        } catch {
            report(error, on: console)
            return Parley.exitCode(for: error).rawValue
        }
        guard command is ShellCommand || command is RunCommand, var shell = command as? any AsyncParsableCommand else { return nil }
        do {
            try await Console.$current.withValue(console) { try await shell.run() }
            return 0
        } catch {
            report(error, on: console)
            return Parley.exitCode(for: error).rawValue
        }
    }

    /// What the binary prints for an error before it exits: the message (with usage
    /// for a mistake on the command line) on stderr, help on stdout.
    private static func report(_ error: any Error, on console: Console) {
        let message = Parley.fullMessage(for: error)
        guard !message.isEmpty else { return }
        StandardOutput.write(message + "\n", to: Parley.exitCode(for: error).isSuccess ? console.output : console.errors)
    }
}
