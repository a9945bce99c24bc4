import Synchronization

/// How a new process's start went: its first line (hello or not), or its end.
final class StartSignal: Sendable {
    enum Outcome: Sendable {
        case hello(BotHello)
        case line
        case ended(PluginProcess.Termination)
        case timeout
    }

    private struct State {
        var outcome: Outcome?
        var waiter: CheckedContinuation<Outcome, Never>?
        var process: PluginProcess?
    }

    private let state = Mutex(State())

    var process: PluginProcess? { state.withLock { $0.process } }

    /// Whether the start is decided (later lines need not be looked at).
    var isSettled: Bool { state.withLock { $0.outcome != nil } }

    func bind(_ process: PluginProcess) {
        state.withLock { $0.process = process }
    }

    /// Records the first line; returns true if it was the first.
    @discardableResult
    func firstLine(hello: BotHello?) -> Bool {
        settle(hello.map { .hello($0) } ?? .line)
    }

    func ended(_ termination: PluginProcess.Termination) {
        settle(.ended(termination))
    }

    @discardableResult
    private func settle(_ outcome: Outcome) -> Bool {
        let (first, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Outcome, Never>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(returning: outcome)
        return first
    }

    func wait(timeout: Duration) async -> Outcome {
        let timer = Task {
            try? await Task.sleep(for: timeout)
            settle(.timeout)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Outcome? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
