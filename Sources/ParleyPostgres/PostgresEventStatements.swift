import Foundation
import ParleyCore
import ParleyLive
import ParleyProtocol
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

/// An event read back, with what the bus needs besides it.
struct ReadEvent {
    var event: PositionedEvent
    var recipients: [Int64]
    var membershipChat: Int64?
}

extension ReadEvents {
    /// An event from a row of `select`; nil for a message event whose message is gone
    /// (its chat was deleted).
    static func event(from row: PostgresRow) throws -> ReadEvent? {
        var cells = Cells(row)
        let position: Int64 = try cells.next()
        let recipients: [Int64] = try cells.next()
        let origin: Data? = try cells.next()
        let chat: Int64? = try cells.next()
        let body: String = try cells.next()
        let event: ChatEvent
        if body.isEmpty {
            // The message writer's: the message and its chat, read with the event.
            var probe = cells
            guard try probe.next(Int64?.self) != nil else { return nil }
            let stored = try PostgresRows.message(&cells)
            let ids: [Int64]? = try cells.next()
            let handles: [String]? = try cells.next()
            let names: [String]? = try cells.next()
            let bots: [Bool]? = try cells.next()
            var participants: [UserRef] = []
            if let ids, let handles, let names, let bots, ids.count == handles.count, ids.count == names.count, ids.count == bots.count {
                for index in ids.indices {
                    participants.append(
                        UserRef(id: UserID(ids[index]), handle: handles[index], displayName: names[index], isBot: bots[index]))
                }
            }
            let summary = try PostgresRows.chat(&cells, participants: participants)
            var message = stored
            let extras = try cells.next(String?.self).flatMap(EventExtras.decode)
            message.clientTags = extras?.tags
            message.lines = extras?.lines
            event = .message(MessageEvent(chat: summary, message: message))
        } else {
            // The bus's own encoding; a row an older build wrote holds the event's wire
            // frame instead.
            guard let decoded = EventEncoding.decode(Array(body.utf8)) ?? EventFrame.decoded(from: Array(body.utf8))?.event else {
                throw ParleyError(.internalError, "the event's body is in no encoding this build reads")
            }
            event = decoded
        }
        return ReadEvent(
            event: PositionedEvent(event: event, position: UInt64(position), originToken: origin), recipients: recipients,
            membershipChat: chat)
    }
}
