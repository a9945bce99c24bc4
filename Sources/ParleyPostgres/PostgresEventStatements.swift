import PostgresNIO

// The event bus's hot statements, prepared once per connection.

/// A batch of events, published by `parley_publish` (migration 3); prepared once per
/// connection.
struct Publish: PostgresPreparedStatement {
    // Named here: the protocol's default name is worked out by reflection at every execution.
    static let name = "parley_publish"
    static let sql = "SELECT parley_publish($1, $2, $3, $4, $5, $6, $7)"
    typealias Row = ()

    var recipients: [String]
    var origins: [String]
    var kept: [Bool]
    var chats: [Int64]
    var messages: [Int64]
    var bodies: [String]
    var at: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(recipients)
        bindings.append(origins)
        bindings.append(kept)
        bindings.append(chats)
        bindings.append(messages)
        bindings.append(bodies)
        bindings.append(at)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {}
}

/// The events after a position, oldest first, a thousand at most; prepared once per
/// connection, as every node runs it after each notification.
struct ReadEvents: PostgresPreparedStatement {
    static let name = "parley_read_events"
    static let sql = select(from: "SELECT * FROM event WHERE position > $1 ORDER BY position LIMIT 1000")

    /// The events `events` selects (a query of `event`), oldest first: each event's
    /// columns, and for a message event the message writer wrote (an empty body, see
    /// `InsertMessage`) the message's columns, a direct chat's users as arrays (ids,
    /// handles, names, bot flags) and the chat's columns, as they are now, and the
    /// client-only tags sent with it. The message
    /// is looked up per event (the lateral subquery's `LIMIT` keeps it from being made a
    /// join that reads the whole message table).
    static func select(from events: String) -> String {
        """
        SELECT e.position, e.recipients, e.origin, e.membership_chat, e.body, x.* FROM (\(events)) e
        LEFT JOIN LATERAL (
            SELECT \(PostgresRows.messageColumns),
                \(participants("u.id")), \(participants("u.handle")), \(participants("u.display_name")), \(participants("u.is_bot")),
                \(PostgresRows.chatColumns), e.client_tags
            FROM message m \(PostgresRows.messageJoins) JOIN chat c ON c.id = m.chat_id
            WHERE e.body = '' AND m.id = e.message_id LIMIT 1
        ) x ON true
        ORDER BY e.position
        """
    }

    private static func participants(_ column: String) -> String {
        """
        CASE WHEN c.kind = 'direct' THEN ARRAY(SELECT \(column) FROM member mb JOIN users u ON u.id = mb.user_id \
        WHERE mb.chat_id = c.id ORDER BY u.id) END
        """
    }

    typealias Row = PostgresRow

    var after: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(after)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { row }
}
