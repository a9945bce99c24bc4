import CSQLite
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Group commit to SQLite, as Parley's store commits (WAL, `synchronous=NORMAL`): the
/// messages that came while the last batch was written go in one transaction (a message
/// row, with the (chat, seq) index, and the chat's row), and each is relayed once it has
/// committed. On the writer's thread (as Parley does, with a hop there and back), or on
/// the loop's (once a turn, after its reads; nothing else runs meanwhile). The WAL is
/// checkpointed once a second on a thread of its own, as Parley's `Checkpointer` does, so
/// that no commit waits for a checkpoint's sync.
final class Store: @unchecked Sendable {
    private struct Message {
        var sender: String
        var text: ByteBuffer
        var committed: () -> Void
    }

    private let loop: any EventLoop
    private let onLoop: Bool
    private let writer = NIOThreadPool(numberOfThreads: 1)
    private let waiting = NIOLockedValueBox<(messages: [Message], writing: Bool)>(([], false))
    /// On the loop: the turn's messages.
    private var gathered: [Message] = []
    private var db: OpaquePointer?
    private var insert: OpaquePointer?
    private var update: OpaquePointer?
    private var seq: Int64 = 0

    init(path: String, loop: any EventLoop, onLoop: Bool) {
        self.loop = loop
        self.onLoop = onLoop
        guard sqlite3_open(path, &db) == SQLITE_OK else { fatalError("cannot open \(path)") }
        execute("PRAGMA journal_mode=WAL")
        execute("PRAGMA synchronous=NORMAL")
        execute("PRAGMA wal_autocheckpoint=0")
        execute(
            """
            CREATE TABLE IF NOT EXISTS message (id INTEGER PRIMARY KEY, chat INTEGER NOT NULL, seq INTEGER NOT NULL,
                sender TEXT NOT NULL, text TEXT NOT NULL, sent_at INTEGER NOT NULL, UNIQUE (chat, seq))
            """)
        execute("CREATE TABLE IF NOT EXISTS chat (id INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, last_sender TEXT)")
        execute("INSERT OR IGNORE INTO chat (id, last_seq) VALUES (1, 0)")
        sqlite3_prepare_v2(db, "INSERT INTO message (chat, seq, sender, text, sent_at) VALUES (1, ?, ?, ?, ?)", -1, &insert, nil)
        sqlite3_prepare_v2(db, "UPDATE chat SET last_seq = ?, last_sender = ? WHERE id = 1", -1, &update, nil)
        if !onLoop { writer.start() }
        checkpoints.start()
        checkpoints.submit { _ in Self.checkpoint(path) }
    }

    private let checkpoints = NIOThreadPool(numberOfThreads: 1)

    /// Every second, what the WAL holds into the database, on a connection of its own.
    private static func checkpoint(_ path: String) {
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { return }
        while true {
            sleep(1)
            sqlite3_exec(db, "PRAGMA wal_checkpoint(PASSIVE)", nil, nil, nil)
        }
    }

    /// Commits a message; `committed` runs on the loop once it has.
    func append(sender: String, text: ByteBuffer, committed: @escaping () -> Void) {
        let message = Message(sender: sender, text: text, committed: committed)
        if onLoop {
            gathered.append(message)
            if gathered.count == 1 { loop.execute { self.commitGathered() } }
            return
        }
        let first = waiting.withLockedValue { waiting in
            waiting.messages.append(message)
            defer { waiting.writing = true }
            return !waiting.writing
        }
        if first { writer.submit { _ in self.drain() } }
    }

    private func commitGathered() {
        let batch = gathered
        gathered = []
        write(batch)
        for message in batch { message.committed() }
    }

    /// On the writer's thread: batch after batch while messages wait.
    private func drain() {
        while true {
            let batch = waiting.withLockedValue { waiting in
                defer { waiting.messages = [] }
                if waiting.messages.isEmpty { waiting.writing = false }
                return waiting.messages
            }
            if batch.isEmpty { return }
            write(batch)
            loop.execute { for message in batch { message.committed() } }
        }
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func write(_ batch: [Message]) {
        execute("BEGIN")
        for message in batch {
            seq += 1
            sqlite3_bind_int64(insert, 1, seq)
            sqlite3_bind_text(insert, 2, message.sender, -1, Self.transient)
            message.text.withUnsafeReadableBytes { text in
                _ = sqlite3_bind_text(insert, 3, text.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(text.count), Self.transient)
            }
            sqlite3_bind_int64(insert, 4, seq)
            guard sqlite3_step(insert) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
            sqlite3_reset(insert)
        }
        sqlite3_bind_int64(update, 1, seq)
        sqlite3_bind_text(update, 2, batch.last?.sender ?? "", -1, Self.transient)
        guard sqlite3_step(update) == SQLITE_DONE else { fatalError(String(cString: sqlite3_errmsg(db))) }
        sqlite3_reset(update)
        execute("COMMIT")
    }

    private func execute(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError("\(sql): \(String(cString: sqlite3_errmsg(db)))") }
    }
}
