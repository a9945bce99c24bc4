import Foundation

/// Runs `body`, which blocks (on a socket, a pipe, a child process), on a thread of
/// its own and awaits it. The threads tasks share are as many as the machine's cores
/// (two on the CI machine): a test that blocks one while it waits for a server starves
/// every other test's tasks, the polls and shells that run in this process among
/// them. Awaited here, the wait gives its shared thread back.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// `onOwnThread` for a wait that cannot fail.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}

extension SilentSocket {
    /// `readCloseCode`, from a task: on a thread of its own.
    public func readCloseCode() async -> UInt16? {
        await onOwnThread { self.readCloseCode() }
    }

    /// `readText`, from a task: on a thread of its own.
    public func readText() async -> String? {
        await onOwnThread { self.readText() }
    }
}

/// `httpGet`, from a task: on a thread of its own.
public func httpGet(port: Int, path: String) async throws -> String {
    try await onOwnThread { try httpGet(port: port, path: path) }
}

/// `rawExchange`, from a task: on a thread of its own.
public func rawExchange(port: Int, _ bytes: [UInt8], timeout: Duration = .seconds(30)) async throws -> (answer: String, closed: Bool) {
    try await onOwnThread { try rawExchange(port: port, bytes, timeout: timeout) }
}
