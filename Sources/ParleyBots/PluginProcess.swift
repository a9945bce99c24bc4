import Foundation
import Subprocess
import Synchronization

#if canImport(Glibc)
    import Glibc
    import SystemPackage
#endif

/// One run of a plugin executable, in a process group of its own so that stopping it
/// also stops whatever it started. Lines it writes to stdout and stderr go to the
/// handlers; `write` hands it one line on stdin and returns once written, so the
/// plugin's bounded queue is the only buffer.
final class PluginProcess: Sendable {
    struct Handlers: Sendable {
        /// A line from stdout; the next is not read until this returns.
        var line: @Sendable (String) async -> Void
        var stderr: @Sendable (String) -> Void
        /// The process ended (after its stdout closed).
        var exit: @Sendable (Termination) -> Void
    }

    enum Termination: Sendable, CustomStringConvertible {
        case exited(Int32)
        case signaled(Int32)
        case failedToStart(String)

        var isCleanExit: Bool {
            if case .exited(0) = self { return true }
            return false
        }

        var description: String {
            switch self {
            case .exited(let code): "exit status \(code)"
            case .signaled(let signal): "signal \(signal)"
            case .failedToStart(let reason): reason
            }
        }
    }

    private struct State {
        var pid: pid_t?
        var ended: Termination?
        var endWaiters: [CheckedContinuation<Void, Never>] = []
        var startWaiter: CheckedContinuation<pid_t?, Never>?
        var pending: [(Data, CheckedContinuation<Bool, Never>)] = []
        var writerWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Starts the executable; returns once it is running (or has failed to start).
    static func start(path: String, arguments: [String], environment: [String: String], handlers: Handlers) async -> PluginProcess {
        let process = PluginProcess()
        _ = await withCheckedContinuation { (started: CheckedContinuation<pid_t?, Never>) in
            process.state.withLock { $0.startWaiter = started }
            Task.detached { await process.run(path: path, arguments: arguments, environment: environment, handlers: handlers) }
        }
        return process
    }

    var pid: pid_t? { state.withLock { $0.pid } }
    var termination: Termination? { state.withLock { $0.ended } }

    private func run(path: String, arguments: [String], environment: [String: String], handlers: Handlers) async {
        var options = PlatformOptions()
        options.processGroupID = 0
        var overrides: [Environment.Key: String?] = [:]
        for (key, value) in environment { overrides[Environment.Key(stringLiteral: key)] = value }
        let termination: Termination
        do {
            let result = try await Subprocess.run(
                .path(.init(path)), arguments: Arguments(arguments), environment: .inherit.updating(overrides),
                platformOptions: options, input: .inputWriter, output: .sequence, error: .sequence
            ) { execution in
                let pid = execution.processIdentifier.value
                let started = state.withLock { state in
                    state.pid = pid
                    defer { state.startWaiter = nil }
                    return state.startWaiter
                }
                started?.resume(returning: pid)
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        do {
                            for try await line in execution.standardError.strings() { handlers.stderr(line) }
                        } catch {}
                    }
                    let writer = Task { await self.feed(execution.standardInputWriter) }
                    do {
                        for try await line in execution.standardOutput.strings() { await handlers.line(line) }
                    } catch {
                        handlers.stderr("(stdout: \(error))")
                    }
                    writer.cancel()
                    self.stopWriting()
                    await writer.value
                    await group.waitForAll()
                }
            }
            switch result.terminationStatus {
            case .exited(let code): termination = .exited(code)
            case .signaled(let signal): termination = .signaled(signal)
            }
        } catch {
            termination = .failedToStart("could not start \(path): \(error)")
        }
        let (started, waiters, pending) = state.withLock { state in
            state.ended = termination
            defer {
                state.startWaiter = nil
                state.endWaiters = []
                state.pending = []
            }
            return (state.startWaiter, state.endWaiters, state.pending)
        }
        started?.resume(returning: nil)
        for (_, continuation) in pending { continuation.resume(returning: false) }
        for waiter in waiters { waiter.resume() }
        handlers.exit(termination)
    }

    /// Writes queued lines to stdin until cancelled.
    private func feed(_ writer: StandardInputWriter) async {
        while !Task.isCancelled {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if !state.pending.isEmpty || state.ended != nil || Task.isCancelled { return true }
                    state.writerWaiter = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
            let next = state.withLock { state in state.pending.isEmpty ? nil : state.pending.removeFirst() }
            guard let (line, done) = next else { continue }
            do {
                _ = try await writer.write(Array(line))
                done.resume(returning: true)
            } catch {
                done.resume(returning: false)
                return
            }
        }
        try? await writer.finish()
    }

    private func stopWriting() {
        let waiter = state.withLock { state in
            defer { state.writerWaiter = nil }
            return state.writerWaiter
        }
        waiter?.resume()
    }

    /// Writes one line (a newline is added); false if the process has ended.
    func write(_ line: Data) async -> Bool {
        var bytes = line
        bytes.append(10)
        return await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            let waiter: CheckedContinuation<Void, Never>?? = state.withLock { state in
                if state.ended != nil { return .none }
                state.pending.append((bytes, done))
                defer { state.writerWaiter = nil }
                return .some(state.writerWaiter)
            }
            switch waiter {
            case .none: done.resume(returning: false)
            case .some(let writer): writer?.resume()
            }
        }
    }

    /// Sends `signal` to the whole process group.
    func signal(_ signal: Int32) {
        guard let pid, termination == nil else { return }
        kill(-pid, signal)
    }

    /// Waits until the process has ended, at most `timeout`; true if it ended.
    func waitForExit(timeout: Duration) async -> Bool {
        let ended = AsyncStream<Void>.makeStream()
        let timer = Task {
            try? await Task.sleep(for: timeout)
            ended.continuation.finish()
        }
        Task {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { state in
                    if state.ended != nil { return true }
                    state.endWaiters.append(continuation)
                    return false
                }
                if done { continuation.resume() }
            }
            ended.continuation.yield()
            ended.continuation.finish()
        }
        for await _ in ended.stream { break }
        timer.cancel()
        return termination != nil
    }

    /// SIGTERM to the group, then SIGKILL after `grace`; returns once it has ended.
    func stop(grace: Duration) async {
        guard let pid else { return }
        if termination == nil {
            kill(-pid, SIGTERM)
            if await waitForExit(timeout: grace) {
                kill(-pid, SIGKILL)  // whatever it left behind in its group
                return
            }
        }
        kill(-pid, SIGKILL)
        _ = await waitForExit(timeout: .seconds(5))
    }
}
