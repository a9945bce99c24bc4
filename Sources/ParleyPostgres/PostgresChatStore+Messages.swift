public import Foundation
public import ParleyCore
public import ParleyStore
import PostgresNIO

/// `MessagesStore`: messages sent, read and searched: history, read markers, mentions.
extension PostgresChatStore {
    public func append(_ messages: [NewMessage]) async throws -> (stored: [(message: Message, created: Bool)], failure: ParleyError?) {
        try await writer.append(messages)
    }

    public func history(chat: ChatID, flow: HistoryFlow, after: Int64, before: Int64?, limit: Int) async throws -> [Message] {
        // -1: every message; 0: the main flow; a root: that thread's.
        let thread: Int64 =
            switch flow {
            case .all: -1
            case .main: 0
            case .thread(let root): root
            }
        return try await rows(
            """
            SELECT \(unescaped: PostgresRows.messageColumns) FROM message m \(unescaped: PostgresRows.messageJoins)
            WHERE m.chat_id = \(chat.rawValue) AND m.seq > \(after) AND m.seq < \(before ?? Int64.max)
            AND (\(thread) < 0 OR (\(thread) = 0 AND (m.thread_seq IS NULL OR m.also_chat)) OR m.thread_seq = \(thread))
            ORDER BY m.seq DESC LIMIT \(Int64(limit))
            """
        ).reversed().map(PostgresRows.message)
    }

    public func message(chat: ChatID, seq: Int64) async throws -> Message? {
        try await rows(
            """
            SELECT \(unescaped: PostgresRows.messageColumns) FROM message m \(unescaped: PostgresRows.messageJoins)
            WHERE m.chat_id = \(chat.rawValue) AND m.seq = \(seq)
            """
        ).first.map(PostgresRows.message)
    }

    public func search(_ query: SearchQuery, user: UserID, limit: Int) async throws -> [Message] {
        // No words: to_tsquery(NULL) is NULL, and the filters alone choose.
        let words = query.terms.isEmpty ? nil : Self.tsquery(query)
        return try await rows(
            """
            SELECT \(unescaped: PostgresRows.messageColumns)
            FROM message m
            JOIN member mb ON mb.chat_id = m.chat_id AND mb.user_id = \(user.rawValue)
            \(unescaped: PostgresRows.messageJoins)
            WHERE (\(words)::text IS NULL OR to_tsvector('simple', m.text) @@ to_tsquery('simple', \(words)))
              AND m.seq > mb.cleared_seq AND m.deleted_at IS NULL
              AND (\(query.chat?.rawValue)::bigint IS NULL OR m.chat_id = \(query.chat?.rawValue)::bigint)
              AND (\(query.sender?.rawValue)::bigint IS NULL OR m.sender_id = \(query.sender?.rawValue)::bigint)
              AND (\(query.before?.storedMilliseconds)::bigint IS NULL OR m.sent_at < \(query.before?.storedMilliseconds)::bigint)
              AND (\(query.after?.storedMilliseconds)::bigint IS NULL OR m.sent_at >= \(query.after?.storedMilliseconds)::bigint)
              AND (\(query.thread)::bigint IS NULL OR m.thread_seq = \(query.thread)::bigint)
            ORDER BY m.id DESC LIMIT \(Int64(limit))
            """
        ).map(PostgresRows.message)
    }

    /// The query in `to_tsquery`'s syntax: each term a quoted lexeme (so none is read as
    /// an operator), a prefix term marked `:*`, all of them required.
    static func tsquery(_ query: SearchQuery) -> String {
        query.terms.map { term in
            let quoted = term.word.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "''")
            return "'" + quoted + "'" + (term.prefix ? ":*" : "")
        }.joined(separator: " & ")
    }

    public func markRead(chat: ChatID, user: UserID, seq: Int64, at time: Date) async throws -> (marker: ReadMarker, moved: Bool) {
        try await transaction { connection in
            let moved = try await connection.query(
                """
                UPDATE member SET read_seq = least(\(seq), c.last_seq), read_at = \(time.storedMilliseconds)
                FROM chat c WHERE c.id = member.chat_id AND member.chat_id = \(chat.rawValue) AND member.user_id = \(user.rawValue)
                    AND member.read_seq < least($1, c.last_seq)
                RETURNING 1
                """, logger: logger
            ).collect()
            guard let marker = try await Self.readMarkers(connection, chat: chat, "mb.user_id = \(user.rawValue)", logger: logger).first
            else { throw ParleyError(.notMember, "not a member of this chat") }
            return (marker, !moved.isEmpty)
        }
    }

    public func markRead(chat: ChatID, user: UserID, upTo limit: Date, at time: Date) async throws -> (marker: ReadMarker, moved: Bool) {
        let upTo = limit.storedMilliseconds
        return try await transaction { connection in
            var moved = try await !connection.query(
                """
                UPDATE member SET read_up_to = \(upTo)
                WHERE chat_id = \(chat.rawValue) AND user_id = \(user.rawValue) AND coalesce(read_up_to, 0) < \(upTo) RETURNING 1
                """, logger: logger
            ).collect().isEmpty
            // The last message sent by then (sequence numbers follow the order of sending).
            let last = try await connection.query(
                "SELECT seq FROM message WHERE chat_id = \(chat.rawValue) AND sent_at <= \(upTo) ORDER BY seq DESC LIMIT 1",
                logger: logger
            ).collect().first?.decode(Int64.self)
            if let seq = last {
                let advanced = try await connection.query(
                    """
                    UPDATE member SET read_seq = \(seq), read_at = \(time.storedMilliseconds)
                    WHERE chat_id = \(chat.rawValue) AND user_id = \(user.rawValue) AND read_seq < \(seq) RETURNING 1
                    """, logger: logger
                ).collect()
                moved = moved || !advanced.isEmpty
            }
            guard let marker = try await Self.readMarkers(connection, chat: chat, "mb.user_id = \(user.rawValue)", logger: logger).first
            else { throw ParleyError(.notMember, "not a member of this chat") }
            return (marker, moved)
        }
    }

    public func readMarker(chat: ChatID, user: UserID) async throws -> ReadMarker? {
        try await client.withConnection { connection in
            try await Self.readMarkers(connection, chat: chat, "mb.user_id = \(user.rawValue)", logger: logger).first
        }
    }

    public func readers(chat: ChatID, atLeast seq: Int64) async throws -> [ReadMarker] {
        try await client.withConnection { connection in
            try await Self.readMarkers(connection, chat: chat, "mb.read_seq >= \(seq)", logger: logger)
        }
    }

    static func readMarkers(
        _ connection: PostgresConnection, chat: ChatID, _ condition: PostgresQuery, logger: Logger
    ) async throws -> [ReadMarker] {
        var query = PostgresQuery(
            unsafeSQL: """
                SELECT u.id, u.handle, u.display_name, u.is_bot, mb.read_seq, mb.read_at,
                    greatest(coalesce(mb.read_up_to, 0),
                        coalesce((SELECT m.sent_at FROM message m WHERE m.chat_id = mb.chat_id AND m.seq = mb.read_seq), 0))
                FROM member mb JOIN users u ON u.id = mb.user_id
                WHERE
                """, binds: condition.binds)
        query.sql += " " + condition.sql
        query.binds.append(chat.rawValue, context: .default)
        query.sql += " AND mb.chat_id = $\(query.binds.count) ORDER BY mb.read_at, u.id"
        return try await connection.query(query, logger: logger).collect().map { row in
            var cells = Cells(row)
            let (user, seq, readAt) = (try PostgresRows.userRef(&cells), try cells.next(Int64.self), try cells.date())
            let upTo = try cells.next(Int64.self)
            return ReadMarker(chatID: chat, user: user, seq: seq, readAt: readAt, upTo: upTo > 0 ? Date(storedMilliseconds: upTo) : nil)
        }
    }

    public func mentions(of user: UserID, limit: Int) async throws -> [Message] {
        let id = user.rawValue
        return try await rows(
            """
            SELECT \(unescaped: PostgresRows.messageColumns)
            FROM (SELECT message_id AS id FROM mention WHERE user_id = \(id)
                  UNION
                  SELECT a.id FROM member mb2 JOIN message a ON a.chat_id = mb2.chat_id AND a.mentions_all
                  WHERE mb2.user_id = \(id) AND a.sender_id <> \(id)) x
            JOIN message m ON m.id = x.id
            JOIN member mb ON mb.chat_id = m.chat_id AND mb.user_id = \(id)
            \(unescaped: PostgresRows.messageJoins)
            WHERE m.seq > mb.cleared_seq AND m.deleted_at IS NULL
            ORDER BY m.id DESC LIMIT \(Int64(limit))
            """
        ).map(PostgresRows.message)
    }
}
