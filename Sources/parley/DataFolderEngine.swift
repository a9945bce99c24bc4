import Foundation
import ParleyEngine
import ParleyStore

/// The engine over a data folder, as `parley serve` and the embedded shell open it:
/// the folder locked for `holder` (see `FolderLock`), `parley.sqlite`, media under
/// `media/`, and `PARLEY_BCRYPT_COST` from the environment (tests lower it). Uploads no
/// message took up are swept in the background.
enum DataFolderEngine {
    /// `lock` is the lock file's descriptor, for `FolderLock.announce`.
    static func open(
        folder: URL, as holder: FolderLock.Holder, durability: SQLiteChatStore.Durability = .normal, backlog: Int = 1024,
        totalBacklog: Int = 2_000_000,
        configure: (inout ChatEngine.Configuration) throws -> Void
    ) throws -> (engine: ChatEngine, store: SQLiteChatStore, lock: Int32) {
        let lock = try FolderLock.hold(folder, as: holder)
        let store = try SQLiteChatStore(path: folder.appendingPathComponent("parley.sqlite").path, durability: durability)
        var configuration = ChatEngine.Configuration()
        if let cost = ProcessInfo.processInfo.environment["PARLEY_BCRYPT_COST"].flatMap(UInt8.init), (4...31).contains(cost) {
            configuration.bcryptCost = cost
        }
        try configure(&configuration)
        let blobs = try FileBlobStore(folder: folder.appendingPathComponent("media"))
        let engine = ChatEngine(store: store, blobs: blobs, bus: InProcessEventBus(backlog: backlog, totalBacklog: totalBacklog), configuration: configuration)
        Task.detached { try? await engine.sweepMedia() }
        return (engine, store, lock)
    }
}
