import Foundation
import ParleyCore
import ParleyEngine
import ParleyLive
import ParleyProtocol
import ParleySQLite
import ParleyStore

/// The engine over a data folder, as `parley serve` and the embedded shell open it:
/// `parley.sqlite` (locked for `access`, see `DatabaseLock`), media under `media/`, and
/// `PARLEY_BCRYPT_COST` from the environment (tests lower it).
enum DataFolderEngine {
    static func open(
        folder: URL, access: DatabaseLock.Access, durability: SQLiteChatStore.Durability = .normal, backlog: Int = 1024,
        totalBacklog: Int = 2_000_000, media: URL? = nil, batchStart: BatchStart = .immediately,
        configure: (inout ChatEngine.Configuration) throws -> Void
    ) throws -> (engine: ChatEngine, store: SQLiteChatStore) {
        let store = try SQLiteChatStore(
            path: folder.appendingPathComponent("parley.sqlite").path, durability: durability, access: access, batchStart: batchStart)
        let configuration = try Self.configuration(configure)
        let blobs = try FileBlobStore(folder: media ?? folder.appendingPathComponent("media"))
        // A server's positions outlive the process: a client resumes exactly across a
        // restart. Shells share the folder and resume nothing, so they keep no events
        // (two processes would take the same positions).
        let journal = access == .exclusive ? store.journal : nil
        try journal?.start(codec: Self.eventCodec, keep: totalBacklog)
        let bus = InProcessEventBus(backlog: backlog, totalBacklog: totalBacklog, journal: journal)
        let engine = ChatEngine(store: store, blobs: blobs, bus: bus, configuration: configuration)
        return (engine, store)
    }

    /// Events other than messages are kept in the engine's own encoding; what an older
    /// build kept, as their wire frames.
    static let eventCodec = SQLiteEventJournal.Codec(
        encode: { EventEncoding.encode($0) }, decode: { EventEncoding.decode($0) ?? EventFrame.decoded(from: $0)?.event })

    /// The engine's configuration as `configure` makes it, with the bcrypt cost from
    /// `PARLEY_BCRYPT_COST`.
    static func configuration(_ configure: (inout ChatEngine.Configuration) throws -> Void) throws -> ChatEngine.Configuration {
        var configuration = ChatEngine.Configuration()
        if let cost = Console.current.environment["PARLEY_BCRYPT_COST"].flatMap(UInt8.init), (4...31).contains(cost) {
            configuration.bcryptCost = cost
        }
        try configure(&configuration)
        return configuration
    }
}
