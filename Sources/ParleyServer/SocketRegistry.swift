import NIOCore
import ServiceLifecycle
import Synchronization

/// Told to every socket when the server stops.
struct ServerStopping: Sendable {}

/// The live sockets, so stopping the server can close each with a close frame and wait
/// until their sessions have ended (before the database closes).
final class SocketRegistry: Service, Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var drained: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    var channels: [any Channel] { state.withLock { Array($0.channels.values) } }

    func add(_ channel: any Channel) {
        state.withLock { $0.channels[ObjectIdentifier(channel)] = channel }
    }

    func remove(_ channel: any Channel) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.channels[ObjectIdentifier(channel)] = nil
            guard state.channels.isEmpty else { return [] }
            defer { state.drained = [] }
            return state.drained
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for the server to stop, then closes every socket and waits until all have ended.
    func run() async throws {
        guard (try? await gracefulShutdown()) != nil else { return }
        for channel in state.withLock({ Array($0.channels.values) }) {
            channel.pipeline.fireUserInboundEventTriggered(ServerStopping())
        }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.channels.isEmpty { return true }
                state.drained.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
