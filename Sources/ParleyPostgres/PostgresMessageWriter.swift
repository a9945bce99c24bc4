import Foundation
import Logging
import NIOCore
import ParleyCore
import ParleyStore
import PostgresNIO
import Synchronization

/// Group commit on PostgreSQL: sends that arrive while a batch is being written wait and
/// go together into the next one, and each caller is answered after that commit. A batch
/// of single messages (the usual one) is one statement, `InsertMessages`; a lone message
/// is `InsertMessage`; lists of several messages, which stop at their first refusal, are
/// a transaction of one `InsertMessage` a message. Each chat's row is locked while its
/// next sequence numbers are taken, so writers on other nodes queue behind it and
/// numbers stay gap-free.
final class PostgresMessageWriter: Sendable {
    typealias Outcome = (stored: [(message: Message, created: Bool)], failure: ParleyError?)

    private let observer = CommitObserver()
    private let batches: BatchQueue<[NewMessage], Outcome>

    /// The writer's own connection: batches come one at a time, all day.
    private let connection: DedicatedConnection

    init(location: PostgresLocation, start: BatchStart, logger: Logger) {
        let observer = observer
        // Its statements are planned once for the connection, and never as a scan of a
        // whole table: a plan made while the tables were small (a hashed scan of every
        // message for the client ids) would keep scanning them once they are not. It is
        // read on a thread of PostgresNIO's, not on a server's event loop: there each
        // batch's answer waited behind the sockets' work, and a batch took a fifth longer.
        let connection = DedicatedConnection(
            location: location, name: "message writer", setup: ["SET enable_seqscan = off"],
            on: PostgresConnection.defaultEventLoopGroup, logger: logger)
        self.connection = connection
        batches = BatchQueue(start: start, executor: connection.executor) { batch in
            try await Self.write(batch, connection: connection, logger: logger, observer: observer)
        }
    }

    /// Closes the writer's connection; sends after it fail as unavailable.
    func close() async {
        await connection.close()
    }

    func observe(_ commit: @escaping @Sendable (Duration, Int) -> Void) {
        observer.set(commit)
    }

    func append(_ messages: [NewMessage]) async throws -> Outcome {
        try await batches.submit(messages)
    }

    private static func write(
        _ batch: [[NewMessage]], connection: DedicatedConnection, logger: Logger, observer: CommitObserver
    ) async throws -> [Result<Outcome, any Error>] {
        let started = ContinuousClock.now
        var attempt = 0
        // Each request one message (the usual batch): all of them in one statement.
        // (A thread's message goes alone: `InsertMessage` counts it in its thread.)
        var together = batch.count > 1 && batch.allSatisfy { $0.count == 1 && $0[0].thread == nil }
        while true {
            attempt += 1
            do {
                // One statement is its own transaction: no BEGIN and COMMIT round trips.
                let outcomes = try await connection.run { connection in
                    if batch.count == 1 && batch[0].count == 1 { return try await insert(batch, connection, logger: logger) }
                    if together { return try await insertTogether(batch.map { $0[0] }, connection, logger: logger) }
                    return try await connection.withTransaction(logger: logger) { try await insert(batch, $0, logger: logger) }
                }
                observer.committed(outcomes.reduce(0) { $0 + $1.stored.count }, since: started)
                return outcomes.map { .success($0) }
            } catch {
                // The same client id twice in one batch, or sent through another node at
                // the same moment: the unique index refused the second insert. Once more,
                // one message a statement, and the first is found.
                if attempt < 3, isUniqueViolation(error) {
                    together = false
                    continue
                }
                throw error
            }
        }
    }

    /// Stores one message from each request in one statement (`InsertMessages`); a
    /// message it did not store (refused, or its client id stored before) is then tried
    /// alone, which finds the earlier message or the reason. The statement has committed
    /// by then, so the ones it stored stay stored.
    private static func insertTogether(_ messages: [NewMessage], _ connection: PostgresConnection, logger: Logger) async throws -> [Outcome]
    {
        var stored: [Int: (id: Int64, seq: Int64)] = [:]
        for try await row in try await connection.execute(InsertMessages(messages), logger: logger) {
            stored[row.item - 1] = (row.id, row.seq)
        }
        var outcomes: [Outcome] = []
        for (index, message) in messages.enumerated() {
            if let (id, seq) = stored[index] {
                outcomes.append(([(Self.stored(message, id: id, seq: seq), true)], nil))
                continue
            }
            switch try await insert(message, connection, logger: logger) {
            case .success(let result): outcomes.append(([result], nil))
            case .failure(let refusal): outcomes.append(([], refusal))
            }
        }
        return outcomes
    }

    /// A message just stored, as its sender sent it.
    private static func stored(_ message: NewMessage, id: Int64, seq: Int64) -> Message {
        var stored = Message(
            id: MessageID(id), chatID: message.chatID, seq: seq, sender: message.sender, kind: message.kind, text: message.text,
            media: message.media, sentAt: Date(storedMilliseconds: message.sentAt.storedMilliseconds), clientID: message.clientID,
            via: message.via, mentions: message.mentions.map(\.handle), mentionsEveryone: message.mentionsEveryone)
        stored.thread = message.thread
        stored.alsoToChat = message.alsoToChat
        return stored
    }

    /// What a message's event carries beside it and the message does not keep, as the
    /// event's `client_tags` column holds it: its client-only tags as a JSON object, or,
    /// with its sender's cut into lines, `{"tags": {…}, "lines": […]}`.
    static func tagsColumn(_ message: NewMessage) -> String? {
        guard let lines = message.lines else {
            return message.clientTags.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        }
        return (try? JSONEncoder().encode(EventExtras(tags: message.clientTags, lines: lines))).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Stores each list in order, stopping a list at its first refusal.
    private static func insert(_ batch: [[NewMessage]], _ connection: PostgresConnection, logger: Logger) async throws -> [Outcome] {
        var outcomes: [Outcome] = []
        for messages in batch {
            var stored: [(message: Message, created: Bool)] = []
            var failure: ParleyError?
            for message in messages {
                switch try await insert(message, connection, logger: logger) {
                case .success(let result): stored.append(result)
                case .failure(let refusal): failure = refusal
                }
                if failure != nil { break }
            }
            outcomes.append((stored, failure))
        }
        return outcomes
    }

    private static func isUniqueViolation(_ error: any Error) -> Bool {
        let underlying = (error as? PostgresTransactionError)?.closureError ?? error
        return (underlying as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }

    private static func insert(
        _ message: NewMessage, _ connection: PostgresConnection, logger: Logger
    ) async throws -> Result<(message: Message, created: Bool), ParleyError> {
        let chat = message.chatID.rawValue
        let sender = message.sender.id.rawValue
        let sentAt = message.sentAt.storedMilliseconds
        let media = MediaColumn.encode(message.media)
        let kind = message.kind.rawValue
        let statement = InsertMessage(
            sentAt: sentAt, sender: sender, kind: kind, text: message.text, media: media, clientID: message.clientID, chat: chat,
            via: message.via?.name, mentions: MessageColumns.mentions(message.mentions.map(\.handle)),
            mentionsAll: message.mentionsEveryone, replyTo: message.replyTo, mentioned: message.mentions.map(\.id.rawValue),
            origin: message.origin, clientTags: tagsColumn(message), viaKind: message.via?.kind,
            viaUsername: message.via?.username, thread: message.thread, alsoToChat: message.alsoToChat)
        var inserted: (id: Int64, seq: Int64)?
        for try await row in try await connection.execute(statement, logger: logger) { inserted = row }
        if let (id, seq) = inserted { return .success((stored(message, id: id, seq: seq), true)) }
        if let clientID = message.clientID,
            let existing = try await connection.query(
                """
                SELECT \(unescaped: PostgresRows.messageColumns) FROM message m \(unescaped: PostgresRows.messageJoins)
                WHERE m.sender_id = \(sender) AND m.client_id = \(clientID)
                """, logger: logger
            ).collect().first
        {
            return .success((try PostgresRows.message(existing), false))
        }
        let chatExists = try await !connection.query("SELECT 1 FROM chat WHERE id = \(chat)", logger: logger).collect().isEmpty
        return .failure(AppendRefusal.error(chatExists: chatExists))
    }
}

/// The statement that stores one message, prepared once per connection so it is not
/// parsed and planned for every message. Parameters: $1 sent at, $2
/// sender, $3 kind, $4 text, $5 media, $6 client id, $7 chat, $8 via, $9 mentioned
/// handles, $10 mentions everyone, $11 the seq it replies to, $12 the mentioned users, $13
/// the sending session's token hash, $14 its client-only tags (JSON), for its event, $15
/// and $16 the via's kind and a hook post's username, $17 the root of its thread and $18
/// whether the main flow shows it too (a thread's message counts in its thread, opening
/// it, and its sender follows it unless they muted it and has read it to there). The
/// sequence number, the membership check, the chat's copy of its last message, the
/// message, the sender's read marker, the mentions and the message's event (see
/// `PostgresEventBus`: its position taken under the publishers' lock, the chat's
/// members but those who ignore the sender as its recipients, an empty body that says
/// "read the message"), in one
/// statement: a send costs no round trip and no commit of its own for its event. The
/// publishers' lock is taken before the chat's row (a one-time filter), as every
/// publisher takes it before any row, so two nodes' writers cannot deadlock.
struct InsertMessage: PostgresPreparedStatement {
    // Named here: the protocol's default name is worked out by reflection at every execution.
    static let name = "parley_insert_message"
    static let sql = """
        WITH c AS (
            UPDATE chat SET last_seq = last_seq + 1, last_message_id = nextval('message_id_seq'), last_activity_at = $1,
                last_sender_id = $2, last_kind = $3, last_text = $4, last_media = $5, last_client_id = $6, last_deleted_at = NULL
            WHERE id = $7 AND EXISTS (SELECT 1 FROM member WHERE chat_id = $7 AND user_id = $2)
                AND (SELECT count(*) FROM pg_advisory_xact_lock(787802)) = 1
                AND ($6::text IS NULL OR NOT EXISTS (SELECT 1 FROM message WHERE sender_id = $2 AND client_id = $6))
            RETURNING last_seq, last_message_id
        ), m AS (
            INSERT INTO message (id, chat_id, seq, sender_id, kind, text, media, sent_at, client_id, via, mentions, mentions_all, reply_seq,
                via_kind, via_username, thread_seq, also_chat)
            SELECT last_message_id, $7, last_seq, $2, $3, $4, $5, $1, $6, $8, $9, $10, $11, $15, $16, $17, $18 FROM c
            RETURNING id, seq
        ), t AS (
            INSERT INTO thread (chat_id, root_seq, replies, last_seq, last_at, created_at)
            SELECT $7, $17, 1, m.seq, $1, $1 FROM m WHERE $17::bigint IS NOT NULL
            ON CONFLICT (chat_id, root_seq) DO UPDATE SET replies = thread.replies + 1, last_seq = excluded.last_seq,
                last_at = excluded.last_at
            RETURNING root_seq
        ), tm AS (
            INSERT INTO thread_member (chat_id, root_seq, user_id, following, read_seq)
            SELECT $7, t.root_seq, $2, 'following', m.seq FROM m, t
            ON CONFLICT (chat_id, root_seq, user_id) DO UPDATE SET read_seq = GREATEST(thread_member.read_seq, excluded.read_seq),
                following = CASE thread_member.following WHEN 'muted' THEN 'muted' ELSE 'following' END
        ), r AS (
            UPDATE member SET read_seq = m.seq, read_at = $1 FROM m WHERE member.chat_id = $7 AND member.user_id = $2
                AND ($17::bigint IS NULL OR $18)
        ), n AS (
            INSERT INTO mention (user_id, chat_id, seq, message_id)
            SELECT u, $7, m.seq, m.id FROM m, unnest($12::bigint[]) AS u ON CONFLICT DO NOTHING
        ), e AS (
            INSERT INTO event (position, recipients, origin, kept, message_id, body, client_tags, created_at)
            SELECT nextval('event_position'), (SELECT array_agg(user_id ORDER BY user_id) FROM member WHERE chat_id = $7
                    AND user_id NOT IN (SELECT user_id FROM ignore WHERE ignored_id = $2)), $13, true,
                m.id, '', $14, $1
            FROM m, (SELECT pg_notify('parley_events', '')) AS publishing
        )
        SELECT id, seq FROM m
        """
    typealias Row = (id: Int64, seq: Int64)

    var sentAt: Int64
    var sender: Int64
    var kind: String
    var text: String
    var media: String?
    var clientID: String?
    var chat: Int64
    var via: String?
    var mentions: String?
    var mentionsAll: Bool
    var replyTo: Int64?
    var mentioned: [Int64]
    var origin: Data?
    var clientTags: String?
    var viaKind: String?
    var viaUsername: String?
    var thread: Int64?
    var alsoToChat: Bool

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 18)
        bindings.append(sentAt)
        bindings.append(sender)
        bindings.append(kind)
        bindings.append(text)
        bindings.append(media)
        bindings.append(clientID)
        bindings.append(chat)
        bindings.append(via)
        bindings.append(mentions)
        bindings.append(mentionsAll)
        bindings.append(replyTo)
        bindings.append(mentioned)
        try bindings.append(origin)
        bindings.append(clientTags)
        bindings.append(viaKind)
        bindings.append(viaUsername)
        bindings.append(thread)
        bindings.append(alsoToChat)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (id, seq) = try row.decode((Int64, Int64).self)
        return (id, seq)
    }
}

/// An event's client tags and its message's lines, in the `client_tags` column.
struct EventExtras: Codable {
    var tags: [String: String]?
    var lines: [MessageLine]?

    /// The column as written: a flat object of tags (every row before lines were kept),
    /// or tags and lines.
    static func decode(_ column: String) -> EventExtras? {
        let data = Data(column.utf8)
        if let tags = try? JSONDecoder().decode([String: String].self, from: data) { return EventExtras(tags: tags, lines: nil) }
        return try? JSONDecoder().decode(EventExtras.self, from: data)
    }
}
