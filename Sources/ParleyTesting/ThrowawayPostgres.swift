public import Foundation
import Synchronization

/// A PostgreSQL server of a test's own, so `swift test` needs nothing running first:
/// `initdb` in a temporary folder, `pg_ctl start` on a free port (its socket in the
/// folder too), and `stop()` shuts it down and removes the folder. initdb refuses to
/// run as root, so under root the server runs as the `postgres` user.
///
/// ```swift
/// let postgres = try ThrowawayPostgres.start()
/// defer { postgres.stop() }
/// // connect to postgres.url: postgres://parley@127.0.0.1:PORT/parley
/// ```
public final class ThrowawayPostgres: Sendable {
    public let folder: URL
    public let port: Int
    public let user = "parley"
    public let database = "parley"
    private let bin: URL
    private let runAs: String?

    public struct Unavailable: Error, CustomStringConvertible {
        public var description: String
    }

    /// `postgres://parley@127.0.0.1:PORT/parley` (no password: the server trusts local connections).
    public var url: String { "postgres://\(user)@127.0.0.1:\(port)/\(database)" }

    /// The folder with initdb and pg_ctl: on the PATH, or Debian's `/usr/lib/postgresql/N/bin`.
    public static func binaries() throws -> URL {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { URL(fileURLWithPath: String($0)) }
        let debian = ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted(by: >)
            .map { URL(fileURLWithPath: "/usr/lib/postgresql/\($0)/bin") }
        for folder in debian + path
        where FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("initdb").path)
            && FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent("pg_ctl").path)
        {
            return folder.resolvingSymlinksInPath()
        }
        throw Unavailable(
            description:
                "the PostgreSQL tests need initdb and pg_ctl: install the server (Debian: apt-get install postgresql-15); .ci/run does")
    }

    private init(folder: URL, port: Int, bin: URL, runAs: String?) {
        self.folder = folder
        self.port = port
        self.bin = bin
        self.runAs = runAs
    }

    /// Makes and starts a server; returns once it takes connections.
    public static func start() throws -> ThrowawayPostgres {
        let bin = try binaries()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-postgres-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let runAs = geteuid() == 0 ? "postgres" : nil
        if let runAs { try run("/bin/chown", ["-R", runAs, folder.path]) }
        var lastError: (any Error)?
        // A free port can be taken between the probe and the start: try a few.
        for _ in 0..<5 {
            let server = ThrowawayPostgres(folder: folder, port: try freePort(), bin: bin, runAs: runAs)
            do {
                try server.setUp()
                return server
            } catch {
                lastError = error
                server.stop(removing: false)
                try? FileManager.default.removeItem(at: folder.appendingPathComponent("data"))
            }
        }
        try? FileManager.default.removeItem(at: folder)
        throw lastError ?? Unavailable(description: "PostgreSQL did not start")
    }

    private func setUp() throws {
        let data = folder.appendingPathComponent("data").path
        try tool("initdb", ["-D", data, "-U", user, "--auth=trust", "-E", "UTF8", "--no-sync", "--locale=C"])
        // Connections: every test of both stores runs at once, each engine test's pool
        // holds up to 4 and each `parley serve` on PostgreSQL up to 16 and its listener;
        // with the tests' waits off the shared threads, a loaded run had more of them
        // open at once than 400 ("too many clients already"). An idle one costs little.
        try tool(
            "pg_ctl",
            [
                "-D", data, "-l", folder.appendingPathComponent("server.log").path, "-w", "-t", "120", "-o",
                "-p \(port) -k \(folder.path) -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c max_connections=1000",
                "start",
            ])
        try tool("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", user, database])
    }

    /// Stops the server and removes its folder.
    public func stop() {
        stop(removing: true)
    }

    /// Has the server stopped and its folder removed once this process has ended, however
    /// it ends (a crash or SIGKILL too), by a watcher in a session of its own that waits
    /// for the end of a pipe only this process holds. Nothing is left for `exit`: when an
    /// exit handler did this, a loaded machine spent minutes in it removing a whole run's
    /// databases (over a gigabyte), after every test had passed, and `swift test` waited.
    public func stopWhenThisProcessEnds() throws {
        // sh -c SCRIPT FOLDER STOP…: $0 is the folder, "$@" the stop command.
        let script = #"cat > /dev/null; "$@" > /dev/null 2>&1; rm -rf -- "$0""#
        let shell = ["/bin/sh", "-c", script, folder.path] + command("pg_ctl", stopArguments)
        let detach = FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid") ? ["/usr/bin/setsid"] : []
        let line = detach + shell
        let watcher = try ChildProcess(line[0], Array(line.dropFirst()), stdin: .pipe)
        Self.watchers.withLock { $0.append(watcher) }
    }

    /// The watchers, and with them the pipes they wait on, for the life of the process.
    private static let watchers = Mutex<[ChildProcess]>([])

    /// `pg_ctl`'s arguments for an immediate stop, waited for.
    private var stopArguments: [String] { ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"] }

    private func stop(removing: Bool) {
        _ = try? tool("pg_ctl", stopArguments)
        if removing { try? FileManager.default.removeItem(at: folder) }
    }

    /// Runs one of the server's programs (as the `postgres` user under root).
    @discardableResult
    public func tool(_ name: String, _ arguments: [String]) throws -> String {
        let line = command(name, arguments)
        return try Self.run(line[0], Array(line.dropFirst()))
    }

    /// The command line that runs one of the server's programs as `tool` runs it.
    private func command(_ name: String, _ arguments: [String]) -> [String] {
        (runAs.map { ["/usr/sbin/runuser", "-u", $0, "--"] } ?? []) + [bin.appendingPathComponent(name).path] + arguments
    }

    /// Runs a program to its end, its output in a file. `ChildProcess` rather than
    /// Foundation's Process, which does not see the end of `pg_ctl start` while the
    /// server it started keeps running.
    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("parley-postgres-tool-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: log) }
        let process: ChildProcess
        do {
            process = try ChildProcess(executable, arguments, stdout: .file(log.path), stderr: .output)
        } catch {
            throw Unavailable(description: "\(error)")
        }
        process.waitUntilExit()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0, !process.endedBySignal else {
            let name = URL(fileURLWithPath: executable).lastPathComponent
            throw Unavailable(description: "\(name) \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }

    /// A port nobody listens on now.
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Unavailable(description: "no socket for a port probe") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Unavailable(description: "no free port") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
