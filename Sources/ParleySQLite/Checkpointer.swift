import Foundation
import GRDB
import GRDBSQLite
import ParleyStore
import Synchronization

/// Keeps the write-ahead log short without making senders wait for it.
///
/// SQLite's own policy checkpoints inside whichever commit takes the log past 1,000
/// pages: that commit copies them all into the database file and syncs it, and every
/// send queued behind it waits (under 2,000 sends/s, 2.6% of sends took over 10 ms,
/// nearly all of them behind a checkpoint). Here a connection of its own copies the
/// pages in the background, which takes no lock a writer needs; but a log can only
/// start over once the writer itself finds it fully copied, so when it passes
/// `restartPages` the writer checkpoints too, copying only what came since.
final class Checkpointer: Sendable {
    /// Log pages after which a commit asks for a background checkpoint.
    static let backgroundPages: Int32 = 1_000
    /// Log pages after which the writer checkpoints inline, so the log can start over
    /// (after about 32 MiB of log with a new file's 1 KiB pages, 128 MiB with the 4 KiB
    /// pages of a file made before them: `SQLiteChatStore.newFilePageSize`). That
    /// checkpoint holds the sends behind it for its two syncs (2.6–6.4 ms here); at 8,000
    /// pages it came every 1.3 s at 1,000 messages/s, and its held deliveries were part of
    /// the p99 (docs/performance.md's history in git, "27 November, towards midnight").
    static let restartPages: Int32 = 32_000

    private let connection: CheckpointConnection
    private let checkpoints: CoalescedWork

    init(path: String, configuration: Configuration) {
        let connection = CheckpointConnection(path: path, configuration: configuration)
        self.connection = connection
        // Below the sends, but not last: a log the background never copies grows to
        // `restartPages`, where the writer copies it itself while sends wait.
        checkpoints = CoalescedWork(label: "parley-checkpoint", nice: 10) { try? connection.checkpoint() }
    }

    /// Takes over checkpoints on `db`: SQLite's automatic checkpoint is replaced by this
    /// policy. Installed on every connection of the pool, it only ever runs on the
    /// writer's, since the hook follows a commit.
    func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, _, pages in
                guard let context else { return SQLITE_OK }
                if pages >= Checkpointer.restartPages {
                    sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                } else if pages >= Checkpointer.backgroundPages {
                    Unmanaged<Checkpointer>.fromOpaque(context).takeUnretainedValue().schedule()
                }
                return SQLITE_OK
            }, context)
    }

    /// Checkpoints soon in the background, coalescing the calls until then.
    func schedule() {
        checkpoints.schedule(after: .milliseconds(100))
    }

    /// Waits for a checkpoint in progress, then closes its connection.
    func close() throws {
        checkpoints.close()
        try connection.close()
    }
}

/// The checkpointer's own connection: opened at the first checkpoint, never again once
/// the store has closed.
private final class CheckpointConnection: Sendable {
    private enum State {
        case none
        case open(DatabaseQueue)
        case closed
    }

    private let path: String
    private let configuration: Configuration
    private let state = Mutex(State.none)

    init(path: String, configuration: Configuration) {
        self.path = path
        self.configuration = configuration
    }

    func checkpoint() throws {
        let queue = try state.withLock { state -> DatabaseQueue? in
            switch state {
            case .open(let queue): return queue
            case .closed: return nil
            case .none:
                let opened = try DatabaseQueue(path: path, configuration: configuration)
                state = .open(opened)
                return opened
            }
        }
        try queue?.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
    }

    func close() throws {
        try state.withLock { state in
            if case .open(let queue) = state { try queue.close() }
            state = .closed
        }
    }
}
