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
    static let sql = """
        SELECT position, recipients, origin, membership_chat, body FROM event
        WHERE position > $1 ORDER BY position LIMIT 1000
        """
    typealias Row = PostgresRow

    var after: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(after)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { row }
}
