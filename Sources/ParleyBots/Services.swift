public import ServiceLifecycle

/// A bot host run as a `Service`: it loads its plugins (`load`, which may wait and
/// retry), runs them until the group shuts down, then stops every plugin. A load that
/// fails ends the group with its error; a shutdown during loading stops what was loaded.
///
/// ```swift
/// let group = ServiceGroup(configuration: .init(
///     services: [ClosingService("database") { try store.close() }, BotHostService(host: host) { try await $0.load(bot: TallyBot(), as: "tally") }],
///     gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
public struct BotHostService: Service {
    let host: BotHost
    let load: @Sendable (BotHost) async throws -> Void

    public init(host: BotHost, load: @escaping @Sendable (BotHost) async throws -> Void) {
        self.host = host
        self.load = load
    }

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { try await load(host) }
        } catch {
            await host.shutdown()
            // Cancelled by the shutdown (or the group): a stop, not a failure.
            if Task.isCancelled || Task.isShuttingDownGracefully || error is CancellationError { return }
            throw error
        }
        try? await gracefulShutdown()
        await host.shutdown()
    }
}

/// Closes something (a database, a connection) when its group stops, gracefully or
/// not. Put it before the services that use the thing: a group stops its services in
/// reverse order, so it closes after them.
public struct ClosingService: Service, CustomStringConvertible {
    public let description: String
    let close: @Sendable () async throws -> Void

    public init(_ name: String, close: @escaping @Sendable () async throws -> Void) {
        description = name
        self.close = close
    }

    public func run() async throws {
        try? await gracefulShutdown()
        try await close()
    }
}
