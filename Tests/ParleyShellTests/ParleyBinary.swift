import Foundation
import ParleyTesting
import Testing

/// Runs the built `parley` binary on a script in a temporary data folder.
struct ParleyBinary {
    struct Result {
        var stdout: String
        var stderr: String
        var status: Int32
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
    }

    /// The same scripts run on the embedded database and against a real server.
    enum Mode: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case embedded
        case server
        var testDescription: String { rawValue }
    }

    let data: URL
    /// The `parley serve` process in server mode, and its address.
    private let server: ChildProcess?
    let serverURL: String?

    init(mode: Mode = .embedded, serverArguments: [String] = []) async throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("parley-shell-\(UUID().uuidString)")
        guard mode == .server else {
            server = nil
            serverURL = nil
            return
        }
        let started = try await ServeProcess.start(data: data.appendingPathComponent("server-data"), arguments: serverArguments)
        (server, serverURL) = (started.process, started.url)
    }

    /// Another user's shell, with a data folder of its own, against the same server.
    init(clientOf other: ParleyBinary) {
        self.init(serverURL: other.serverURL)
    }

    /// A shell with a data folder of its own against the server at `serverURL`.
    init(serverURL: String?) {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("parley-shell-\(UUID().uuidString)")
        server = nil
        self.serverURL = serverURL
    }

    /// The embedded shell over a folder the test already has (a server's, say).
    init(folder: URL) {
        data = folder
        server = nil
        serverURL = nil
    }

    /// Starts `parley serve` on a free port over `data`; returns it once it listens.
    static func startServer(data: URL, arguments: [String] = []) async throws -> (ChildProcess, String) {
        let server = try await ServeProcess.start(data: data, arguments: arguments)
        return (server.process, server.url)
    }

    /// A second `parley serve` over a data folder an earlier one used.
    static func restartServer(data: URL) async throws -> ChildProcess {
        try await startServer(data: data).0
    }

    /// Where the session token is saved: the data folder, or a folder per server in it.
    var sessionFolder: URL {
        guard let serverURL, let url = URL(string: serverURL), let host = url.host, let port = url.port else { return data }
        return data.appendingPathComponent("servers/\(host)_\(port)")
    }

    /// The package's folder: scripts run from it, as `plugins/…` paths expect.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var executable: URL { ServeProcess.executable }

    /// Feeds `script` on stdin (or runs `arguments` alone) and waits for the exit; it runs
    /// in `directory` (the repository, unless named). The shell and `parley run` on the
    /// embedded database run in this process, through the code the binary runs, on files
    /// of their own; other commands, a client of a server, a directory of the test's, or
    /// `PARLEY_TEST_SHELL=binary` (every test), through the binary.
    func run(
        _ script: String = "", arguments: [String] = [], environment: [String: String] = [:], useData: Bool = true,
        directory: URL? = nil
    ) async throws -> Result {
        let (arguments, env) = commandLine(arguments, environment: environment, useData: useData)
        if directory == nil, InProcessShell.available(arguments),
            let result = try await InProcessShell.run(script, arguments: arguments, environment: env)
        {
            return checked(result)
        }
        let binary = self
        return try await onOwnThread {
            try binary.checked(binary.runBinary(script, arguments: arguments, environment: env, directory: directory))
        }
    }

    /// `run` through the binary, waiting on the calling thread: for a thread of the
    /// test's own, which must not wait for the threads tasks share.
    func runBlocking(_ script: String, arguments: [String] = []) throws -> Result {
        let (arguments, env) = commandLine(arguments, environment: [:], useData: true)
        return try checked(runBinary(script, arguments: arguments, environment: env, directory: nil))
    }

    /// The arguments and environment a run of the shell gets.
    private func commandLine(_ arguments: [String], environment: [String: String], useData: Bool) -> ([String], [String: String]) {
        var env = ProcessInfo.processInfo.environment
        env["PARLEY_BCRYPT_COST"] = "4"
        env["NO_COLOR"] = "1"
        for (key, value) in environment { env[key] = value }
        return ((useData ? ["--data", data.path] : []) + (serverURL.map { ["--server", $0] } ?? []) + arguments, env)
    }

    /// Any line with "error" in it names no internal type.
    private func checked(_ result: Result) -> Result {
        for line in (result.stderr + "\n" + result.stdout).split(separator: "\n") where line.contains("error") {
            expectNoLeak(String(line))
        }
        return result
    }

    private func runBinary(_ script: String, arguments: [String], environment env: [String: String], directory: URL?) throws -> Result {
        let process = try ChildProcess(
            Self.executable.path, arguments, environment: env, directory: (directory ?? Self.repository).path, stdin: .pipe,
            stdout: .pipe, stderr: .pipe)
        guard let input = process.input, let output = process.output, let errors = process.errors else { fatalError("pipes asked for") }
        // The script is written, and the errors read, on threads of their own while the
        // output is read here: a long script's output fills its pipe long before the
        // script is all written. A shell that stops early (a script's first error)
        // closes its input: what it printed and its status tell the test, not the write.
        let pipes = UncheckedPipes(input: input, errors: errors)
        let written = DispatchSemaphore(value: 0)
        let errorsRead = DispatchSemaphore(value: 0)
        let errText = Shared(Data())
        Thread.detachNewThread {
            try? pipes.input.write(contentsOf: Data(script.utf8))
            try? pipes.input.close()
            written.signal()
        }
        Thread.detachNewThread {
            errText.withLock { $0 = pipes.errors.readDataToEndOfFile() }
            errorsRead.signal()
        }
        let outData = output.readDataToEndOfFile()
        written.wait()
        errorsRead.wait()
        let errData = errText.withLock { $0 }
        process.waitUntilExit()
        return Result(
            stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self),
            status: process.terminationStatus)
    }

    /// Sends `signal` to the server and returns its exit status.
    func stopServer(signal: Int32) -> Int32? {
        guard let server else { return nil }
        server.terminate(signal)
        server.waitUntilExit()
        return server.terminationStatus
    }

    /// The `parley serve` process's id, in server mode.
    var serverProcessID: Int32? { server?.processIdentifier }

    func remove() {
        if let server {
            server.terminate()
            server.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: data)
    }
}

/// A child's input and error pipes, each used by one thread of `run` alone.
private struct UncheckedPipes: @unchecked Sendable {
    let input: FileHandle
    let errors: FileHandle
}

/// Two accounts and a group, the start of most scripts.
let aliceAndBob = """
    /register alice@example.com --handle alice --name "Alice Liddell" --password secret-alice
    /create #swift Swift on Linux
    /logout
    /register bob@example.com --handle bob --password secret-bob
    """

extension ParleyBinary {
    /// The shell reading a pipe the test writes to line by line, reading its answers
    /// as they come.
    final class Conversation: @unchecked Sendable {
        let process: ChildProcess
        private let input: FileHandle
        private let output: FileHandle
        private var pending = ""

        init(process: ChildProcess, input: FileHandle, output: FileHandle) {
            self.process = process
            self.input = input
            self.output = output
        }

        /// Writes `line` to the shell; throws if the shell has ended (a closed pipe).
        func send(_ line: String) async throws {
            try input.write(contentsOf: Data((line + "\n").utf8))
        }

        /// The next output line containing `text` (any line for ""), or nil if the shell ends first. The
        /// timeout (5 minutes) only guards against a hang. With `unfinished`, a line
        /// still being written (a prompt) counts too.
        func waitForLine(containing text: String, unfinished: Bool = false) throws -> String? {
            let deadline = Date().addingTimeInterval(300)
            while Date() < deadline {
                while let newline = pending.firstIndex(of: "\n") {
                    let line = String(pending[..<newline])
                    pending = String(pending[pending.index(after: newline)...])
                    if text.isEmpty || line.contains(text) { return line }
                }
                if unfinished, pending.contains(text) {
                    defer { pending = "" }
                    return pending
                }
                var ready = pollfd(fd: output.fileDescriptor, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 100) >= 0 else { return nil }
                if ready.revents == 0 { continue }
                let chunk = output.availableData
                if chunk.isEmpty { return nil }
                pending += String(decoding: chunk, as: UTF8.self)
            }
            return nil
        }

        /// `waitForLine`, from a task: on a thread of its own.
        func waitForLine(containing text: String, unfinished: Bool = false) async throws -> String? {
            try await onOwnThread { try self.waitForLine(containing: text, unfinished: unfinished) }
        }

        func finish() {
            try? input.close()
            process.waitUntilExit()
        }
    }

    /// Starts the shell on a pipe, signed in as whoever the data folder's session is.
    /// With `keepGoing`, a command that fails (the server restarting, say) does not end
    /// the shell, and its error line comes with the answers: for a conversation that
    /// asks again until it gets its answer.
    func converse(keepGoing: Bool = false, arguments: [String] = []) throws -> Conversation {
        var env = ProcessInfo.processInfo.environment
        env["PARLEY_BCRYPT_COST"] = "4"
        env["NO_COLOR"] = "1"
        // A conversation that goes on after errors reads them with the answers.
        let process = try ChildProcess(
            Self.executable.path,
            ["--data", data.path] + (serverURL.map { ["--server", $0] } ?? []) + (keepGoing ? ["--keep-going"] : []) + arguments,
            environment: env, stdin: .pipe, stdout: .pipe, stderr: keepGoing ? .output : .null)
        guard let input = process.input, let output = process.output else { fatalError("pipes asked for") }
        return Conversation(process: process, input: input, output: output)
    }
}
