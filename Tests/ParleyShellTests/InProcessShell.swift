import Foundation
import ParleyCommands
import Testing

/// The shell run in this process: the launcher the binary runs, given files for its
/// standard input, output and error, and an environment of its own. Starting no process,
/// a script test costs what its commands cost.
enum InProcessShell {
    /// On the embedded database: a client of a server stays a process of its own. In
    /// process, the shell's tasks share the test process's few threads with tests that
    /// block them waiting on sockets and processes, and a client's connection attempt
    /// (5 s) is not made to wait that out.
    static func available(_ arguments: [String]) -> Bool {
        inRepository && !arguments.contains("--server")
    }

    /// Unless `PARLEY_TEST_SHELL=binary` sends every test through the binary; and only
    /// when this process runs in the repository, as the binary does (scripts name
    /// `plugins/…` and other files by relative paths).
    private static let inRepository: Bool = {
        guard ProcessInfo.processInfo.environment["PARLEY_TEST_SHELL"] != "binary" else { return false }
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).resolvingSymlinksInPath().path
        return here == ParleyBinary.repository.resolvingSymlinksInPath().path
    }()

    /// Runs `parley ARGUMENTS` with `script` as its input; nil when the arguments name a
    /// command other than the shell (which only the binary runs).
    static func run(_ script: String, arguments: [String], environment: [String: String]) async throws -> ParleyBinary.Result? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("stdin")
        let output = folder.appendingPathComponent("stdout")
        let errors = folder.appendingPathComponent("stderr")
        try Data(script.utf8).write(to: input)
        var console = Console()
        console.input = try descriptor(input, O_RDONLY)
        console.output = try descriptor(output, O_WRONLY | O_CREAT | O_APPEND)
        console.errors = try descriptor(errors, O_WRONLY | O_CREAT | O_APPEND)
        defer { for each in [console.input, console.output, console.errors] { close(each) } }
        console.environment = environment
        console.ownsProcess = false
        guard let status = await CommandLineEntry.runInProcess(arguments, console: console) else { return nil }
        return ParleyBinary.Result(
            stdout: String(decoding: try Data(contentsOf: output), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errors), as: UTF8.self), status: status)
    }

    private static func descriptor(_ file: URL, _ flags: Int32) throws -> Int32 {
        let opened = open(file.path, flags | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path]) }
        return opened
    }
}
