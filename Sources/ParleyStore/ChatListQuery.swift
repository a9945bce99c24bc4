/// The chat list's one query, for both stores: the user's memberships, each chat with its
/// copy of the last message (and whether it is past the user's `cleared_seq`), the peer
/// of a direct chat, the read marker, and the count of unread mentions. A chat the user
/// deleted stays out until a message arrives after their `cleared_seq`. Its 26 columns are
/// read by position, in this order, by each driver.
package enum ChatListQuery {
    package enum Dialect: Sendable {
        /// Flags are integers (`= 1` lets SQLite use its partial index of `@all` messages);
        /// the user is `?`; sorting is done by the caller.
        case sqlite
        /// Flags are booleans; the user is `$1`; sorted newest activity first.
        case postgres
    }

    /// Made once: SQLite finds its prepared statement by the text.
    package static let sqlite = sql(.sqlite)
    package static let postgres = sql(.postgres)

    private static func sql(_ dialect: Dialect) -> String {
        let (users, isSet, user) = dialect == .sqlite ? ("user", " = 1", "?") : ("users", "", "$1")
        let order = dialect == .postgres ? "\nORDER BY c.last_activity_at DESC, c.id DESC" : ""
        return """
            SELECT c.id, c.kind, c.handle, c.title, c.is_public, c.created_at, c.last_seq, c.last_activity_at,
                   mb.read_seq, pu.id, pu.handle, pu.display_name, pu.is_bot,
                   c.last_message_id, c.last_sender_id, c.last_kind, c.last_text, c.last_media, c.last_client_id,
                   c.last_seq > mb.cleared_seq, c.topic, c.anyone_sets_topic, c.anyone_mentions_all, c.last_deleted_at,
                   CASE WHEN c.last_seq > mb.read_seq THEN
                       (SELECT count(*) FROM mention mn WHERE mn.user_id = mb.user_id AND mn.chat_id = c.id AND mn.seq > mb.read_seq)
                       + (SELECT count(*) FROM message ma WHERE ma.chat_id = c.id AND ma.mentions_all\(isSet)
                            AND ma.seq > mb.read_seq AND ma.sender_id <> mb.user_id)
                   ELSE 0 END,
                   mb.notify
            FROM member mb
            JOIN chat c ON c.id = mb.chat_id
            LEFT JOIN \(users) pu ON c.kind = 'direct'
                AND pu.id = (CASE WHEN c.user_low = mb.user_id THEN c.user_high ELSE c.user_low END)
            WHERE mb.user_id = \(user) AND NOT (mb.hidden\(isSet) AND c.last_seq <= mb.cleared_seq)\(order)
            """
    }
}
