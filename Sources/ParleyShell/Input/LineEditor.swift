@preconcurrency import CReadline
import Foundation
import Glibc
import Synchronization

/// The interactive shell's line input: readline's callback interface on one thread,
/// polling the terminal, a pipe of incoming events and a pipe of signals, so an event
/// prints above the prompt without disturbing the half-typed line.
public final class LineEditor: @unchecked Sendable {
    /// What the editor asks of the shell.
    public struct Hooks: Sendable {
        /// Runs a line; returns false to quit.
        public var execute: @Sendable (String) async -> Bool
        public var prompt: @Sendable () async -> String
        public var completions: @Sendable (String, Bool) -> [String]
        /// Called as the user types a message (not a command) into the line.
        public var typing: @Sendable () -> Void

        public init(
            execute: @escaping @Sendable (String) async -> Bool, prompt: @escaping @Sendable () async -> String,
            completions: @escaping @Sendable (String, Bool) -> [String], typing: @escaping @Sendable () -> Void = {}
        ) {
            self.typing = typing
            self.execute = execute
            self.prompt = prompt
            self.completions = completions
        }
    }

    private let hooks: Hooks
    private let historyPath: String
    private let events = Mutex<[String]>([])
    /// Shown before the prompt (who is typing), nil for nothing.
    private let status = Mutex<String?>(nil)
    private let eventPipe = Pipe()
    private let donePipe = Pipe()

    public init(historyPath: String, hooks: Hooks) {
        self.historyPath = historyPath
        self.hooks = hooks
    }

    /// Queues text to print above the prompt (from any thread).
    public func show(_ text: String) {
        events.withLock { $0.append(text) }
        eventPipe.wake()
    }

    /// Sets what is shown before the prompt, such as who is typing (from any thread).
    public func setStatus(_ text: String?) {
        status.withLock { $0 = text }
        eventPipe.wake()
    }

    /// Runs the editor on its own thread until the user quits.
    public func run() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread { [self] in
                loop()
                continuation.resume()
            }
            thread.stackSize = 1 << 22
            thread.start()
        }
    }

    private func loop() {
        ReadlineGlue.setUp(historyPath: historyPath, completions: hooks.completions)
        defer { ReadlineGlue.tearDown() }
        var prompt = blocking { await self.hooks.prompt() }
        var shownStatus: String?
        func decorated() -> String { shownStatus.map { "(\($0)) " + prompt } ?? prompt }
        ReadlineGlue.install(prompt: prompt)
        var running: Task<Void, Never>?
        while true {
            var fds = [
                pollfd(fd: running == nil ? STDIN_FILENO : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: eventPipe.readFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: ReadlineGlue.signalPipe.readFD, events: Int16(POLLIN), revents: 0),
                pollfd(fd: donePipe.readFD, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else { break }
            if fds[2].revents != 0 {
                ReadlineGlue.signalPipe.drain()
                if let running { running.cancel() } else { ReadlineGlue.clearLine() }
            }
            if fds[1].revents != 0 {
                eventPipe.drain()
                let texts = events.withLock { texts in
                    defer { texts = [] }
                    return texts
                }
                for text in texts { ReadlineGlue.printAbovePrompt(text, promptActive: running == nil) }
                let wanted = status.withLock { $0 }
                // What was told may have changed the prompt too (signed out by the server).
                let fresh = running == nil && !texts.isEmpty ? blocking { await self.hooks.prompt() } : prompt
                if wanted != shownStatus || fresh != prompt, running == nil {
                    (shownStatus, prompt) = (wanted, fresh)
                    ReadlineGlue.changePrompt(decorated())
                }
            }
            if fds[3].revents != 0 {
                donePipe.drain()
                running = nil
                if ReadlineGlue.quitRequested { break }
                prompt = blocking { await self.hooks.prompt() }
                shownStatus = status.withLock { $0 }
                ReadlineGlue.install(prompt: decorated())
            }
            if running == nil, fds[0].revents != 0 {
                rl_callback_read_char()
                guard let accepted = ReadlineGlue.takeLine() else {
                    let typed = ReadlineGlue.typed
                    if !typed.isEmpty, !typed.hasPrefix("/") { hooks.typing() }
                    continue
                }
                ReadlineGlue.remove()
                guard let line = accepted else {
                    StandardOutput.write("\n")
                    break
                }
                guard let toRun = confirmPaste(line) else {
                    ReadlineGlue.install(prompt: decorated())
                    continue
                }
                ReadlineGlue.remember(line)
                let done = donePipe
                running = Task {
                    if await !self.hooks.execute(toRun) { ReadlineGlue.quitRequested = true }
                    done.wake()
                }
            }
        }
        running?.cancel()
    }

    /// A pasted block (several lines at once) is sent as one message only if the user agrees.
    private func confirmPaste(_ line: String) -> String? {
        guard line.contains("\n") else { return line }
        let count = line.split(separator: "\n", omittingEmptySubsequences: false).count
        let answer = Terminal.readLine(prompt: "Send these \(count) lines as one message? [y/N] ", echo: true) ?? ""
        guard answer.lowercased().hasPrefix("y") else { return nil }
        // Sent as text even if it starts with a slash: a paste is not a command.
        return line.hasPrefix("/") ? "/" + line : line
    }

    /// Waits for async work from this (non-async) thread.
    private func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let semaphore = DispatchSemaphore(value: 0)
        let result = Mutex<T?>(nil)
        Task {
            let value = await work()
            result.withLock { $0 = value }
            semaphore.signal()
        }
        semaphore.wait()
        return result.withLock { $0! }
    }
}

/// A self-pipe used to wake `poll`.
final class Pipe: @unchecked Sendable {
    let readFD: Int32
    let writeFD: Int32

    init() {
        var fds: [Int32] = [0, 0]
        pipe(&fds)
        readFD = fds[0]
        writeFD = fds[1]
        _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
        _ = fcntl(writeFD, F_SETFL, fcntl(writeFD, F_GETFL) | O_NONBLOCK)
    }

    func wake() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    func drain() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(readFD, &buffer, buffer.count) > 0 {}
    }
}
