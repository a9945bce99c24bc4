import Foundation
import Logging
import ParleyBots
import ParleyCore
import ParleyEngine
import ParleyPostgres
import ParleySQLite
import ParleyServer
import ParleyStore
import ServiceLifecycle

/// Where `parley serve` keeps its data: the SQLite file of its data folder, or a
/// PostgreSQL database shared by every node started with the same `--postgres`.
struct ServerStorage {
    var engine: ChatEngine
    /// Services that start before the server and stop after it: the PostgreSQL pool,
    /// the event bus and the heartbeat, or what closes the SQLite file last.
    var services: [any Service]
    var databasePath: String?
    var observeCommits: (@escaping @Sendable (Duration, Int) -> Void) -> Void
    /// Records where the server listens (for `parley` on the same data folder).
    var announce: @Sendable (String) -> Void
    /// Releases the storage when the server does not start.
    var abandon: () -> Void
}

extension ServeCommand {
    func openStorage(
        folder: URL, logger: Logger, configure: (inout ChatEngine.Configuration) throws -> Void
    ) async throws -> ServerStorage {
        let mediaFolder = media.map { URL(fileURLWithPath: $0) } ?? folder.appendingPathComponent("media")
        guard let postgres else {
            let (engine, store) = try DataFolderEngine.open(
                folder: folder, access: .exclusive, durability: syncFull ? .full : .normal, backlog: backlog,
                totalBacklog: totalBacklog, media: mediaFolder, batchStart: ParleyServer.batchStart, configure: configure)
            let closer = ClosingService("database") {
                try store.close()
                logger.info("database closed")
            }
            return ServerStorage(
                engine: engine, services: [closer], databasePath: store.path, observeCommits: store.observeCommits,
                announce: { store.lock.announce(url: $0) }, abandon: { try? store.close() })
        }
        let location = try PostgresLocation(url: postgres)
        try await PostgresChatStore.prepare(location, logger: logger)
        let store = PostgresChatStore(
            location: location, batchStart: ParleyServer.batchStart, loops: ParleyServer.eventLoopGroup(threads: eventLoops), logger: logger
        )
        let bus = try await PostgresEventBus.open(store: store, keep: totalBacklog, logger: logger)
        let presence = PostgresPresence(store: store, timeout: try Limits.duration(seconds: heartbeatTimeout), logger: logger)
        try await presence.register()
        let engine = ChatEngine(
            // The media folder is shared; this node's uploads in progress are its own.
            store: store, blobs: try FileBlobStore(folder: mediaFolder, owner: "\(ProcessInfo.processInfo.hostName)-\(folder.path)"),
            bus: bus, presence: presence,
            configuration: try DataFolderEngine.configuration {
                try configure(&$0)
                $0.membersChangeElsewhere = true
            })
        logger.info("storage: PostgreSQL at \(location), node \(presence.node), media in \(mediaFolder.path)")
        return ServerStorage(
            engine: engine, services: [store, bus, presence], databasePath: nil, observeCommits: store.observeCommits, announce: { _ in },
            abandon: {})
    }
}
