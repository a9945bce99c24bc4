import Foundation
import GRDB
import ParleyCore
import ParleyStore

/// Column lists and decoders shared by the queries, so every query reads rows the same way.
enum Rows {
    /// A user's columns, the owner's handle last; `userColumnCount` of them.
    static let userColumns =
        "u.id, u.handle, u.display_name, u.email, u.is_bot, u.avatar, u.created_at, (SELECT o.handle FROM user o WHERE o.id = u.owner_id)"
    static let userColumnCount = 8

    static func user(_ row: Row, from index: Int = 0) -> User {
        User(
            id: UserID(row[index]), handle: row[index + 1], displayName: row[index + 2], email: row[index + 3],
            isBot: row[index + 4], avatar: row[index + 5], createdAt: date(row[index + 6]), owner: row[index + 7])
    }

    /// `m.*` message columns, the sender's handle, name and bot flag, and the quoted
    /// original of a reply: read from `messageTables`.
    static let messageColumns = """
        m.id, m.chat_id, m.seq, m.sender_id, m.kind, m.text, m.media, m.sent_at, m.client_id, s.handle, s.display_name, s.is_bot, m.via,
        m.mentions, m.mentions_all, m.reactions, m.edited_at, m.deleted_at,
        r.seq, r.sender_id, rs.handle, rs.display_name, rs.is_bot, r.text, r.deleted_at, m.via_kind, m.via_username,
        m.thread_seq, m.also_chat, t.root_seq, t.title, t.replies, t.last_at, tt.title
        """

    /// The joins `messageColumns` reads from, after `message m`.
    static let messageJoins = """
        JOIN user s ON s.id = m.sender_id
        LEFT JOIN message r ON m.reply_seq IS NOT NULL AND r.chat_id = m.chat_id AND r.seq = m.reply_seq
        LEFT JOIN user rs ON rs.id = r.sender_id
        LEFT JOIN thread t ON t.chat_id = m.chat_id AND t.root_seq = m.seq
        LEFT JOIN thread tt ON m.thread_seq IS NOT NULL AND tt.chat_id = m.chat_id AND tt.root_seq = m.thread_seq
        """

    static func message(_ row: Row, from index: Int = 0) -> Message {
        let sender = UserRef(id: UserID(row[index + 3]), handle: row[index + 9], displayName: row[index + 10], isBot: row[index + 11])
        let quoted: Int64? = row[index + 19]
        let quote = MessageColumns.quote(
            seq: row[index + 18],
            sender: quoted.map { UserRef(id: UserID($0), handle: row[index + 20], displayName: row[index + 21], isBot: row[index + 22]) },
            text: row[index + 23], deletedAt: row[index + 24])
        var message = Message(
            id: MessageID(row[index]), chatID: ChatID(row[index + 1]), seq: row[index + 2], sender: sender,
            kind: MessageKind(rawValue: row[index + 4]) ?? .text, text: row[index + 5], media: MediaColumn.decode(row[index + 6]),
            sentAt: date(row[index + 7]), clientID: row[index + 8],
            via: Provenance(kind: row[index + 25], name: row[index + 12], username: row[index + 26]),
            mentions: MessageColumns.mentions(row[index + 13]), mentionsEveryone: row[index + 14], replyTo: quote,
            reactions: MessageColumns.reactions(row[index + 15]), editedAt: date(row[index + 16] as Int64?),
            deletedAt: date(row[index + 17] as Int64?))
        message.thread = row[index + 27]
        message.alsoToChat = row[index + 28]
        if (row[index + 29] as Int64?) != nil {
            message.threadHead = ThreadHead(
                title: row[index + 30], replies: Int(clamping: row[index + 31] as Int64), lastActivity: date(row[index + 32] as Int64?))
        }
        message.threadTitle = row[index + 33]
        return message
    }

    static let chatColumns =
        """
        c.id, c.kind, c.handle, c.title, c.is_public, c.created_at, c.topic, c.anyone_sets_topic, c.anyone_mentions_all,
        c.moderated, c.member_limit, c.join_key IS NOT NULL, c.unlisted, c.topic_set_by, c.topic_set_at, c.retention_days
        """

    /// How many columns `chatColumns` reads: a query's own columns come after.
    static let chatColumnCount = 16

    static func chat(_ row: Row, participants: [UserRef], from index: Int = 0) -> Chat {
        var chat = Chat(
            id: ChatID(row[index]), kind: ChatKind(rawValue: row[index + 1]) ?? .group, handle: row[index + 2],
            title: row[index + 3], isPublic: row[index + 4], participants: participants.sorted { $0.id < $1.id },
            createdAt: date(row[index + 5]), topic: row[index + 6], anyoneSetsTopic: row[index + 7], anyoneMentionsAll: row[index + 8])
        chat.moderated = row[index + 9]
        chat.memberLimit = row[index + 10]
        chat.keyed = row[index + 11]
        chat.unlisted = row[index + 12]
        chat.topicSetBy = row[index + 13]
        chat.topicSetAt = date(row[index + 14] as Int64?)
        chat.retentionDays = row[index + 15]
        return chat
    }

    static func chat(_ db: Database, id: ChatID) throws -> Chat? {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(chatColumns) FROM chat c WHERE c.id = ?", arguments: [id.rawValue])
        else { return nil }
        return chat(row, participants: try participants(db, row: row))
    }

    static func chats(_ db: Database, sql: String, arguments: StatementArguments) throws -> [Chat] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            chat(row, participants: try participants(db, row: row))
        }
    }

    /// The two users of a direct chat; empty for groups.
    static func participants(_ db: Database, row: Row) throws -> [UserRef] {
        guard row[1] == ChatKind.direct.rawValue else { return [] }
        return try Row.fetchAll(
            db,
            sql: "SELECT u.id, u.handle, u.display_name, u.is_bot FROM member mb JOIN user u ON u.id = mb.user_id WHERE mb.chat_id = ?",
            arguments: [row[0] as Int64]
        ).map { UserRef(id: UserID($0[0]), handle: $0[1], displayName: $0[2], isBot: $0[3]) }
    }

    static func date(_ milliseconds: Int64) -> Date { Date(storedMilliseconds: milliseconds) }
    static func date(_ milliseconds: Int64?) -> Date? { milliseconds.map { date($0) } }
}
