public import Foundation

/// The real `parley serve`, run as a process for tests through the binary: started on
/// a port over a data folder, stopped with a signal or killed.
public struct ServeProcess: Sendable {
    public let process: ChildProcess
    /// Where it listens, `ws://127.0.0.1:PORT/v1/ws` (`wss://` with TLS).
    public let url: String
    public let port: Int
    /// The IRC gateway's port, when started with `--irc-port`.
    public let ircPort: Int?
    /// The IRC-over-TLS port, with `--ircs-port`.
    public let ircsPort: Int?

    public struct StartFailure: Error {
        public var output: String
    }

    /// The `parley` binary beside the test bundle in the build folder.
    public static var executable: URL {
        let candidate = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("parley")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/parley")
    }

    /// Starts it and returns once it listens (its first line on stdout says where).
    /// Throws `StartFailure` when it does not come up, say because `port` is taken.
    /// With `log`, its standard error (the log) goes to that file; `environment` adds to
    /// the test's own. With `hosts`, it runs in a mount namespace of its own where that
    /// file is `/etc/hosts`, so names resolve as the test says for it alone.
    public static func start(
        data: URL, port: Int = 0, arguments: [String] = [], logLevel: String = "warning", log: URL? = nil,
        environment extra: [String: String] = [:], hosts: URL? = nil
    ) throws -> ServeProcess {
        // Deadlines meant for strangers are long here, so a busy machine cannot trip
        // them for a test's well-behaved clients; `arguments` may set them shorter.
        // The ping timeout too: a test's clients answer pings from threads a loaded
        // machine starved past 15 s (a client dropped mid-request fails it).
        let patient = ["--handshake-timeout", "3600", "--sign-in-timeout", "3600", "--ping-timeout", "120"]
        var environment = ProcessInfo.processInfo.environment
        environment["PARLEY_BCRYPT_COST"] = "4"
        environment.merge(extra) { $1 }
        var command =
            [executable.path, "serve", "--port", String(port), "--data", data.path, "--log-level", logLevel] + patient + arguments
        if let hosts {
            // `exec` keeps the process the one the test signals.
            command =
                ["/usr/bin/unshare", "--mount", "/bin/sh", "-c", "mount --bind \"$0\" /etc/hosts && exec \"$@\"", hosts.path] + command
        }
        let process = try ChildProcess(
            command[0], Array(command.dropFirst()), environment: environment, stdout: .pipe,
            stderr: log.map { .file($0.path) } ?? .inherit)
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")), let output = process.output {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let start = text.range(of: "wss://") ?? text.range(of: "ws://"), let end = text[start.lowerBound...].firstIndex(of: " "),
            let listening = URL(string: String(text[start.lowerBound..<end])), let bound = listening.port
        else {
            process.terminate()
            process.waitUntilExit()
            throw StartFailure(output: text)
        }
        func portAfter(_ scheme: String) -> Int? {
            text.range(of: " \(scheme)://").flatMap { start in
                text[start.upperBound...].split(separator: " ").first?.split(separator: ":").last.flatMap { Int($0) }
            }
        }
        return ServeProcess(
            process: process, url: listening.absoluteString, port: bound, ircPort: portAfter("irc"), ircsPort: portAfter("ircs"))
    }

    /// `start`, from a task: its wait for the server's first line on a thread of its own.
    public static func start(
        data: URL, port: Int = 0, arguments: [String] = [], logLevel: String = "warning", log: URL? = nil,
        environment extra: [String: String] = [:], hosts: URL? = nil
    ) async throws -> ServeProcess {
        try await onOwnThread {
            try start(data: data, port: port, arguments: arguments, logLevel: logLevel, log: log, environment: extra, hosts: hosts)
        }
    }

    /// A server on a port of its own below the kernel's ephemeral range, where no other
    /// test's socket can take it while it is down: for a test that restarts it there.
    public static func startRestartable(data: URL, arguments: [String] = []) throws -> ServeProcess {
        for _ in 0..<50 {
            if let started = try? start(data: data, port: Int.random(in: 20_000..<32_000), arguments: arguments) { return started }
        }
        return try start(data: data, port: Int.random(in: 20_000..<32_000), arguments: arguments)
    }

    /// `startRestartable`, from a task.
    public static func startRestartable(data: URL, arguments: [String] = []) async throws -> ServeProcess {
        try await onOwnThread { try startRestartable(data: data, arguments: arguments) }
    }

    /// SIGKILL: no goodbye, no cleanup, as a crash would end it.
    public func kill() {
        process.terminate(SIGKILL)
        process.waitUntilExit()
    }

    /// SIGTERM, then waits for it to exit.
    public func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}
