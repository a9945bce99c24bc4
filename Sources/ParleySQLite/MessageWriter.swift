import Foundation
import GRDB
import GRDBSQLite
import ParleyCore
import ParleyStore
import Synchronization

/// Group commit: sends that arrive while a transaction is being written wait and go
/// together into the next one, and each caller is answered after that commit. With one
/// sender this is one transaction per message; with many it amortises the commit.
final class MessageWriter: Sendable {
    /// Messages stored in order up to the first that a rule refused, and that refusal.
    typealias Outcome = (stored: [(message: Message, created: Bool)], failure: ParleyError?)

    private let observer = CommitObserver()
    private let batches: BatchQueue<[NewMessage], Outcome>

    /// - Parameter afterCommit: runs after each committed batch (search indexing,
    ///   checkpoints).
    init(pool: DatabasePool, journal: SQLiteEventJournal, start: BatchStart, afterCommit: @escaping @Sendable () -> Void) {
        let observer = observer
        let queue = DispatchQueue(label: "parley.message-writer")
        // SQLite's writes block: batches are written on a queue of their own, which
        // answers the senders itself.
        batches = BatchQueue(on: queue, start: start) { batch in
            try Self.write(batch, pool: pool, journal: journal, observer: observer, afterCommit: afterCommit)
        }
    }

    func observe(_ commit: @escaping @Sendable (Duration, Int) -> Void) {
        observer.set(commit)
    }

    /// Stores `messages` in order, in one transaction with whatever else is waiting,
    /// and stops at the first a rule refuses: the ones before it are committed, the
    /// ones after it are not tried.
    func append(_ messages: [NewMessage]) async throws -> Outcome {
        try await batches.submit(messages)
    }

    private static func write(
        _ batch: [[NewMessage]], pool: DatabasePool, journal: SQLiteEventJournal, observer: CommitObserver,
        afterCommit: @Sendable () -> Void
    ) throws -> [Result<Outcome, any Error>] {
        let started = ContinuousClock.now
        // Each new message's event, in the message's transaction (see `SQLiteEventJournal`).
        var events: [(message: MessageID, position: UInt64)] = []
        let outcomes: [Outcome]
        do {
            outcomes = try pool.writeWithoutTransaction { db in
                try RawStatement.transaction(db) {
                    var tails = ChatTails()
                    let outcomes = try batch.map { messages -> Outcome in
                        var stored: [(message: Message, created: Bool)] = []
                        for message in messages {
                            switch try insert(message, into: &tails, db) {
                            case .success(let result):
                                stored.append(result)
                                if result.created, let position = try journal.positionForMessage(db) {
                                    let event = try RawStatement(db, "INSERT INTO event (position, message_id, origin) VALUES (?, ?, ?)")
                                    try event.bind(
                                        .integer(Int64(clamping: position)), .integer(result.message.id.rawValue), .optional(message.origin)
                                    )
                                    try event.run()
                                    events.append((result.message.id, position))
                                }
                            case .failure(let refusal): return (stored, refusal)
                            }
                        }
                        return (stored, nil)
                    }
                    try tails.write(db)
                    return outcomes
                }
            }
        } catch {
            journal.abandon(events.map(\.position))
            throw error
        }
        journal.committed(events)
        observer.committed(outcomes.reduce(0) { $0 + $1.stored.count }, since: started)
        afterCommit()
        return outcomes.map { .success($0) }
    }

    /// What a batch changes in its chats' rows and its senders' read markers, written once
    /// a chat and once a sender before the commit instead of once a message: each chat's
    /// sequence number is read when the batch first stores in it and counted here after.
    private struct ChatTails {
        struct Last {
            var seq: Int64
            var message: (id: Int64, sentAt: Int64, sender: Int64, kind: String, text: String, media: String?, clientID: String?)?
        }
        /// By chat id.
        var chats: [Int64: Last] = [:]
        /// Senders known to be members, by chat and user id.
        var members: Set<Pair> = []
        /// Each sender's newest message (its seq and time) in each chat.
        var reads: [Pair: (seq: Int64, at: Int64)] = [:]

        struct Pair: Hashable {
            var chat: Int64
            var user: Int64
        }

        /// Writes the chats' last messages and the senders' read markers.
        func write(_ db: Database) throws {
            for (chat, last) in chats {
                guard let message = last.message else { continue }
                let update = try RawStatement(
                    db,
                    """
                    UPDATE chat SET last_seq = ?, last_message_id = ?, last_activity_at = ?,
                        last_sender_id = ?, last_kind = ?, last_text = ?, last_media = ?, last_client_id = ?, last_deleted_at = NULL
                    WHERE id = ?
                    """)
                try update.bind(
                    .integer(last.seq), .integer(message.id), .integer(message.sentAt), .integer(message.sender), .text(message.kind),
                    .text(message.text), .optional(message.media), .optional(message.clientID), .integer(chat))
                try update.run()
            }
            // Sending implies having read the chat up to one's own message.
            for (pair, read) in reads {
                let update = try RawStatement(db, "UPDATE member SET read_seq = ?, read_at = ? WHERE chat_id = ? AND user_id = ?")
                try update.bind(.integer(read.seq), .integer(read.at), .integer(pair.chat), .integer(pair.user))
                try update.run()
            }
        }
    }

    /// Inserts one message inside the batch's transaction. A rule failure for this
    /// message is its result; a database error aborts the whole batch.
    private static func insert(
        _ message: NewMessage, into tails: inout ChatTails, _ db: Database
    ) throws -> Result<(message: Message, created: Bool), ParleyError> {
        let chat = message.chatID.rawValue
        let sender = message.sender.id.rawValue
        if let clientID = message.clientID {
            let retried = try RawStatement(db, "SELECT id FROM message WHERE sender_id = ? AND client_id = ?")
            try retried.bind(.integer(sender), .text(clientID))
            if try retried.step() {
                let id = retried.integer(0)
                retried.reset()
                let existing = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT \(Rows.messageColumns) FROM message m \(Rows.messageJoins) WHERE m.id = ?"),
                    arguments: [id])
                if let existing { return .success((Rows.message(existing), false)) }
            }
        }
        // The chat's last sequence number and the sender's membership, read the first
        // time the batch stores from this sender in this chat (a known member's chat is
        // known too); the writer is the only one, so nothing else can change them before
        // the commit.
        let pair = ChatTails.Pair(chat: chat, user: sender)
        if !tails.members.contains(pair) {
            let state = try RawStatement(
                db, "SELECT last_seq, EXISTS (SELECT 1 FROM member WHERE chat_id = ?1 AND user_id = ?2) FROM chat WHERE id = ?1")
            try state.bind(.integer(chat), .integer(sender))
            guard try state.step() else { return .failure(AppendRefusal.error(chatExists: false)) }
            let (lastSeq, member) = (state.integer(0), state.integer(1) != 0)
            state.reset()
            guard member else { return .failure(AppendRefusal.error(chatExists: true)) }
            if tails.chats[chat] == nil { tails.chats[chat] = ChatTails.Last(seq: lastSeq) }
            tails.members.insert(pair)
        }
        guard let last = tails.chats[chat]?.seq, last < Int64.max else {
            throw DatabaseError(resultCode: .SQLITE_FULL, message: "chat \(chat) has used every sequence number")
        }
        let seq = last + 1
        let sentAt = message.sentAt.storedMilliseconds
        let media = MediaColumn.encode(message.media)
        let insert = try RawStatement(
            db,
            """
            INSERT INTO message (chat_id, seq, sender_id, kind, text, media, sent_at, client_id, via, mentions, mentions_all, reply_seq,
                via_kind, via_username, thread_seq, also_chat)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try insert.bind(
            .integer(chat), .integer(seq), .integer(sender), .text(message.kind.rawValue), .text(message.text), .optional(media),
            .integer(sentAt), .optional(message.clientID), .optional(message.via?.name),
            .optional(MessageColumns.mentions(message.mentions.map(\.handle))), .flag(message.mentionsEveryone), .optional(message.replyTo),
            .optional(message.via?.kind), .optional(message.via?.username), .optional(message.thread), .flag(message.alsoToChat))
        try insert.run()
        let id = sqlite3_last_insert_rowid(db.sqliteConnection)
        if let root = message.thread { try countInThread(chat: chat, root: root, seq: seq, sentAt: sentAt, sender: sender, db) }
        tails.chats[chat] = ChatTails.Last(
            seq: seq, message: (id, sentAt, sender, message.kind.rawValue, message.text, media, message.clientID))
        // A thread's message says its sender read the thread, not the chat's main flow.
        if message.thread == nil || message.alsoToChat { tails.reads[pair] = (seq, sentAt) }
        for mentioned in message.mentions {
            let mention = try RawStatement(db, "INSERT OR IGNORE INTO mention (user_id, chat_id, seq, message_id) VALUES (?, ?, ?, ?)")
            try mention.bind(.integer(mentioned.id.rawValue), .integer(chat), .integer(seq), .integer(id))
            try mention.run()
        }
        var stored = Message(
            id: MessageID(id), chatID: message.chatID, seq: seq, sender: message.sender, kind: message.kind,
            text: message.text, media: message.media, sentAt: Rows.date(sentAt), clientID: message.clientID, via: message.via,
            mentions: message.mentions.map(\.handle), mentionsEveryone: message.mentionsEveryone)
        stored.thread = message.thread
        stored.alsoToChat = message.alsoToChat
        return .success((stored, true))
    }

    /// A message stored in a thread: the thread's counts (opening it if it was not), and
    /// its sender following it (unless they muted it) and having read it up to there.
    private static func countInThread(chat: Int64, root: Int64, seq: Int64, sentAt: Int64, sender: Int64, _ db: Database) throws {
        let thread = try RawStatement(
            db,
            """
            INSERT INTO thread (chat_id, root_seq, replies, last_seq, last_at, created_at) VALUES (?1, ?2, 1, ?3, ?4, ?4)
            ON CONFLICT (chat_id, root_seq) DO UPDATE SET replies = replies + 1, last_seq = ?3, last_at = ?4
            """)
        try thread.bind(.integer(chat), .integer(root), .integer(seq), .integer(sentAt))
        try thread.run()
        let member = try RawStatement(
            db,
            """
            INSERT INTO thread_member (chat_id, root_seq, user_id, following, read_seq) VALUES (?1, ?2, ?3, 'following', ?4)
            ON CONFLICT (chat_id, root_seq, user_id) DO UPDATE SET read_seq = max(read_seq, ?4),
                following = CASE following WHEN 'muted' THEN 'muted' ELSE 'following' END
            """)
        try member.bind(.integer(chat), .integer(root), .integer(sender), .integer(seq))
        try member.run()
    }
}
