public import Foundation
import GRDB
public import ParleyCore
public import ParleyStore

/// `MessagesStore`: messages sent, read and searched: history, read markers, mentions.
extension SQLiteChatStore {
    public func append(_ messages: [NewMessage]) async throws -> (stored: [(message: Message, created: Bool)], failure: ParleyError?) {
        try await writer.append(messages)
    }

    public func history(chat: ChatID, flow: HistoryFlow, after: Int64, before: Int64?, limit: Int) async throws -> [Message] {
        let (filter, thread): (String, Int64?) =
            switch flow {
            case .all: ("", nil)
            case .main: (" AND (m.thread_seq IS NULL OR m.also_chat)", nil)
            case .thread(let root): (" AND m.thread_seq = ?", root)
            }
        return try await pool.read { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT \(Rows.messageColumns) FROM message m \(Rows.messageJoins)
                    WHERE m.chat_id = ? AND m.seq > ? AND m.seq < ?\(filter) ORDER BY m.seq DESC LIMIT ?
                    """)
            var arguments: StatementArguments = [chat.rawValue, after, before ?? Int64.max]
            if let thread { arguments += [thread] }
            arguments += [limit]
            let rows = try Row.fetchAll(statement, arguments: arguments)
            return rows.reversed().map { Rows.message($0) }
        }
    }

    public func search(_ query: SearchQuery, user: UserID, limit: Int) async throws -> [Message] {
        // ?1 the words, ?2 the user, ?3 the chat, ?4 the sender, ?5 before, ?6 after, ?7 the limit, ?8 the thread.
        let filters = """
            m.seq > mb.cleared_seq AND m.deleted_at IS NULL AND (?3 IS NULL OR m.chat_id = ?3) AND (?4 IS NULL OR m.sender_id = ?4)
            AND (?5 IS NULL OR m.sent_at < ?5) AND (?6 IS NULL OR m.sent_at >= ?6) AND (?8 IS NULL OR m.thread_seq = ?8)
            """
        let arguments: StatementArguments = [
            query.terms.isEmpty ? nil : Self.fts5(query), user.rawValue, query.chat?.rawValue, query.sender?.rawValue,
            query.before?.storedMilliseconds, query.after?.storedMilliseconds, limit, query.thread,
        ]
        guard !query.terms.isEmpty else {
            // Filters alone: newest first through the messages of the user's chats.
            return try await pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT \(Rows.messageColumns)
                        FROM message m
                        JOIN member mb ON mb.chat_id = m.chat_id AND mb.user_id = ?2
                        \(Rows.messageJoins)
                        WHERE ?1 IS NULL AND \(filters)
                        ORDER BY m.id DESC LIMIT ?7
                        """,
                    arguments: arguments
                ).map { Rows.message($0) }
            }
        }
        try await indexer.catchUp()
        return try await indexer.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Rows.messageColumns)
                    FROM main.message_fts f
                    JOIN message m ON m.id = f.rowid
                    JOIN member mb ON mb.chat_id = m.chat_id AND mb.user_id = ?2
                    \(Rows.messageJoins)
                    WHERE message_fts MATCH ?1 AND \(filters)
                    ORDER BY m.id DESC LIMIT ?7
                    """,
                arguments: arguments
            ).map { Rows.message($0) }
        }
    }

    /// The query in FTS5's syntax: each term a quoted string (so none is read as an
    /// operator), a prefix term followed by `*`, all of them required.
    static func fts5(_ query: SearchQuery) -> String {
        query.terms.map { "\"" + $0.word.replacingOccurrences(of: "\"", with: "\"\"") + "\"" + ($0.prefix ? "*" : "") }
            .joined(separator: " ")
    }

    public func markRead(chat: ChatID, user: UserID, seq: Int64, at time: Date) async throws -> (marker: ReadMarker, moved: Bool) {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE member SET read_seq = min(?1, (SELECT last_seq FROM chat WHERE id = ?2)), read_at = ?4
                    WHERE chat_id = ?2 AND user_id = ?3 AND read_seq < min(?1, (SELECT last_seq FROM chat WHERE id = ?2))
                    """,
                arguments: [seq, chat.rawValue, user.rawValue, time.storedMilliseconds])
            let moved = db.changesCount > 0
            guard let marker = try Self.readMarkers(db, chat: chat, condition: "mb.user_id = ?", user.rawValue).first else {
                throw ParleyError(.notMember, "not a member of this chat")
            }
            return (marker, moved)
        }
    }

    public func markRead(chat: ChatID, user: UserID, upTo limit: Date, at time: Date) async throws -> (marker: ReadMarker, moved: Bool) {
        try await pool.write { db in
            let upTo = limit.storedMilliseconds
            try db.execute(
                sql: "UPDATE member SET read_up_to = ? WHERE chat_id = ? AND user_id = ? AND coalesce(read_up_to, 0) < ?",
                arguments: [upTo, chat.rawValue, user.rawValue, upTo])
            var moved = db.changesCount > 0
            // The last message sent by then (sequence numbers follow the order of sending).
            if let seq = try Int64.fetchOne(
                db, sql: "SELECT seq FROM message WHERE chat_id = ? AND sent_at <= ? ORDER BY seq DESC LIMIT 1",
                arguments: [chat.rawValue, upTo])
            {
                try db.execute(
                    sql: "UPDATE member SET read_seq = ?, read_at = ? WHERE chat_id = ? AND user_id = ? AND read_seq < ?",
                    arguments: [seq, time.storedMilliseconds, chat.rawValue, user.rawValue, seq])
                moved = moved || db.changesCount > 0
            }
            guard let marker = try Self.readMarkers(db, chat: chat, condition: "mb.user_id = ?", user.rawValue).first else {
                throw ParleyError(.notMember, "not a member of this chat")
            }
            return (marker, moved)
        }
    }

    public func readMarker(chat: ChatID, user: UserID) async throws -> ReadMarker? {
        try await pool.read { db in try Self.readMarkers(db, chat: chat, condition: "mb.user_id = ?", user.rawValue).first }
    }

    public func readers(chat: ChatID, atLeast seq: Int64) async throws -> [ReadMarker] {
        try await pool.read { db in
            try Self.readMarkers(db, chat: chat, condition: "mb.read_seq >= ?", seq)
        }
    }

    static func readMarkers(_ db: Database, chat: ChatID, condition: String, _ value: Int64) throws -> [ReadMarker] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT u.id, u.handle, u.display_name, u.is_bot, mb.read_seq, mb.read_at,
                    max(coalesce(mb.read_up_to, 0),
                        coalesce((SELECT m.sent_at FROM message m WHERE m.chat_id = mb.chat_id AND m.seq = mb.read_seq), 0))
                FROM member mb JOIN user u ON u.id = mb.user_id
                WHERE mb.chat_id = ? AND \(condition) ORDER BY mb.read_at, u.id
                """,
            arguments: [chat.rawValue, value]
        ).map {
            let upTo: Int64 = $0[6]
            return ReadMarker(
                chatID: chat, user: UserRef(id: UserID($0[0]), handle: $0[1], displayName: $0[2], isBot: $0[3]),
                seq: $0[4], readAt: Rows.date($0[5] as Int64), upTo: upTo > 0 ? Rows.date(upTo) : nil)
        }
    }

    public func mentions(of user: UserID, limit: Int) async throws -> [Message] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Rows.messageColumns)
                    FROM (SELECT message_id AS id FROM mention WHERE user_id = ?1
                          UNION
                          SELECT a.id FROM member mb2 JOIN message a ON a.chat_id = mb2.chat_id AND a.mentions_all = 1
                          WHERE mb2.user_id = ?1 AND a.sender_id <> ?1) x
                    JOIN message m ON m.id = x.id
                    JOIN member mb ON mb.chat_id = m.chat_id AND mb.user_id = ?1
                    \(Rows.messageJoins)
                    WHERE m.seq > mb.cleared_seq AND m.deleted_at IS NULL
                    ORDER BY m.id DESC LIMIT ?2
                    """, arguments: [user.rawValue, limit]
            ).map { Rows.message($0) }
        }
    }

    /// Notes that a message's text changed, for the search index to take up at its
    /// next batch (see `SearchIndexer`).
    static func noteSearchChange(_ db: Database, id: Int64) throws {
        try db.execute(sql: "INSERT INTO search_change (message_id) VALUES (?)", arguments: [id])
    }

    public func message(chat: ChatID, seq: Int64) async throws -> Message? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT \(Rows.messageColumns) FROM message m \(Rows.messageJoins) WHERE m.chat_id = ? AND m.seq = ?",
                arguments: [chat.rawValue, seq]
            ).map { Rows.message($0) }
        }
    }
}
