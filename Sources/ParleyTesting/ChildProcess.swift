public import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A program a test runs, started with `posix_spawn` rather than Foundation's `Process`,
/// whose `run()` in Swift 6.3.1 on Linux can crash the whole test run: it reads each
/// `/proc/self/fd` entry past the end of glibc's directory buffer (fixed upstream in
/// swift-corelibs-foundation pull request 5472), and a test process holding thousands of
/// sockets met the edge of mapped memory about one loaded run in eight. After such a crash
/// `swift test` did not exit at all.
///
/// The child gets the three streams it is given and no other descriptor of the test
/// process: a stray copy of another test's pipe would keep that pipe from ever ending.
public final class ChildProcess: Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// `/dev/null`.
        case null
        /// The test process's own.
        case inherit
        /// A pipe to or from the test: `input`, `output` or `errors`.
        case pipe
        /// A file, created or truncated (for stdin: read).
        case file(String)
        /// Standard error only: wherever standard output goes.
        case output
    }

    public struct SpawnFailure: Error, CustomStringConvertible {
        public var description: String
    }

    public let processIdentifier: pid_t
    /// The write end of the child's stdin, for `.pipe`.
    public let input: FileHandle?
    /// The read ends of its stdout and stderr, for `.pipe`.
    public let output: FileHandle?
    public let errors: FileHandle?

    /// The raw `waitpid` status once it has been reaped.
    private let status = Mutex<Int32?>(nil)

    /// Starts `executable` (a path) with `arguments`, in `directory` if given.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        directory: String? = nil, stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null
    ) throws {
        Self.tally(executable)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The test's ends of the pipes, and the child's ends to close once it has them.
        var ours: [Int32: Int32] = [:]
        var theirs: [Int32] = []
        defer { for descriptor in theirs { close(descriptor) } }
        for (target, stream) in [(Int32(0), stdin), (1, stdout), (2, stderr)] {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .inherit:
                break
            case .file(let path):
                let flags = target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
                posix_spawn_file_actions_addopen(&actions, target, path, flags, 0o644)
            case .output:
                posix_spawn_file_actions_adddup2(&actions, 1, target)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else {
                    for descriptor in ours.values { close(descriptor) }
                    throw SpawnFailure(description: "no pipe: \(String(cString: strerror(errno)))")
                }
                let (child, parent) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                _ = fcntl(parent, F_SETFD, FD_CLOEXEC)
                ours[target] = parent
                theirs.append(child)
                posix_spawn_file_actions_adddup2(&actions, child, target)
            }
        }
        _ = Self.closeFrom?(&actions, 3)
        if let directory {
            guard let changeDirectory = Self.changeDirectory else { throw SpawnFailure(description: "no posix_spawn chdir in this libc") }
            _ = changeDirectory(&actions, directory)
        }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            for descriptor in ours.values { close(descriptor) }
            throw SpawnFailure(description: "cannot run \(executable): \(String(cString: strerror(spawned)))")
        }
        processIdentifier = pid
        input = ours[0].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        output = ours[1].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
        errors = ours[2].map { FileHandle(fileDescriptor: $0, closeOnDealloc: true) }
    }

    // glibc's posix_spawn_file_actions_addclosefrom_np (2.34) and _addchdir_np (2.29),
    // which the Glibc module leaves out (they need _GNU_SOURCE).
    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private static let closeFrom = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: CloseFrom.self) }
    private static let changeDirectory = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: ChangeDirectory.self) }

    /// A child still running when the test lets go of it (a test that failed before it
    /// stopped its server, say) is killed: left running, it would outlive the test run,
    /// and one holding the run's standard error keeps `swift test` from ever ending.
    deinit {
        guard isRunning else { return }
        terminate(SIGKILL)
        waitUntilExit()
    }

    /// Sends `signal` (SIGTERM by default), unless the child has been reaped already.
    public func terminate(_ signal: Int32 = SIGTERM) {
        status.withLock { reaped in
            if reaped == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// Waits for the child to end (at once if it has). The wait itself leaves the child
    /// to be reaped under the lock, so that waiting never holds it: `terminate()` from
    /// another thread is not kept waiting, and never signals a reaped (reusable) id.
    public func waitUntilExit() {
        guard status.withLock({ $0 == nil }) else { return }
        var info = siginfo_t()
        while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) < 0 {
            guard errno == EINTR else { break }
        }
        _ = isRunning
    }

    /// Whether it is still running. A child found ended is reaped here, and its status
    /// kept for `terminationStatus`.
    public var isRunning: Bool {
        status.withLock { reaped in
            guard reaped == nil else { return false }
            var raw: Int32 = 0
            guard waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier else { return true }
            reaped = raw
            return false
        }
    }

    /// As Foundation's `Process` says it: the exit status, or the number of the signal
    /// that ended it. Waits for the end first.
    public var terminationStatus: Int32 {
        waitUntilExit()
        let raw = status.withLock { $0 } ?? 0
        let signal = raw & 0x7F
        return signal == 0 ? (raw >> 8) & 0xFF : signal
    }

    /// Whether a signal ended it. Waits for the end first.
    public var endedBySignal: Bool {
        waitUntilExit()
        return (status.withLock { $0 } ?? 0) & 0x7F != 0
    }
}

extension ChildProcess {
    /// With `PARLEY_TEST_TALLY=FILE`, each start of a Parley binary is noted in FILE, a
    /// line naming the test that started it: `scripts/test-tally.py` counts the tests
    /// that run in process and those that go through the binary.
    static func tally(_ executable: String) {
        guard let file = ProcessInfo.processInfo.environment["PARLEY_TEST_TALLY"], !file.isEmpty,
            URL(fileURLWithPath: executable).lastPathComponent.hasPrefix("parley")
        else { return }
        let line = "\(Test.current.map { String(describing: $0.id) } ?? "(no test)")\n"
        let descriptor = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = line.withCString { write(descriptor, $0, strlen($0)) }
    }
}
