import ParleyCore
import ParleyStore
import PostgresNIO

/// A batch's messages, one from each request, stored by one statement: one round trip
/// and one commit for the batch, where a transaction costs a `BEGIN`, a statement a
/// message and a `COMMIT`. It does for every message what `InsertMessage` does for one,
/// column by column: after the publishers' lock (taken before anything else, so before
/// any message number or chat row), the messages whose sender is a member of their chat
/// and whose client id is new are numbered in the batch's order within each chat; each
/// chat's row is updated once (its sequence moved on by its messages, its copy of the
/// last one); then the messages, each sender's read marker, the mentions and one event
/// a message, in the batch's order. Rows: each stored message's place in the batch
/// (from 1), its id and its seq; a message without a row was not stored. Nullable
/// columns travel as array literals (`{NULL,"a"}`).
struct InsertMessages: PostgresPreparedStatement {
    // Named here: the protocol's default name is worked out by reflection at every execution.
    static let name = "parley_insert_messages"
    static let sql = """
        WITH input AS (
            SELECT i.* FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text::text[], $6::text::text[], $7::bigint[],
                    $8::text::text[], $9::text::text[], $10::boolean[], $11::text::bigint[], $14::text::text[], $15::text::text[],
                    $16::text::text[], $17::text::text[])
                WITH ORDINALITY AS i(sent_at, sender, kind, text, media, client_id, chat, via, mentions, mentions_all, reply_seq, origin,
                    client_tags, via_kind, via_username, item)
            WHERE (SELECT count(*) FROM pg_advisory_xact_lock(787802)) = 1
        ), accepted AS (
            SELECT a.*, nextval('message_id_seq') AS id FROM (
                SELECT i.*, row_number() OVER (PARTITION BY i.chat ORDER BY i.item) AS rank, count(*) OVER (PARTITION BY i.chat) AS in_chat
                FROM input i
                WHERE EXISTS (SELECT 1 FROM member WHERE chat_id = i.chat AND user_id = i.sender)
                    AND (i.client_id IS NULL OR NOT EXISTS (SELECT 1 FROM message WHERE sender_id = i.sender AND client_id = i.client_id))
                ORDER BY i.item
            ) a
        ), c AS (
            UPDATE chat SET last_seq = chat.last_seq + l.in_chat, last_message_id = l.id, last_activity_at = l.sent_at,
                last_sender_id = l.sender, last_kind = l.kind, last_text = l.text, last_media = l.media, last_client_id = l.client_id,
                last_deleted_at = NULL
            FROM accepted l WHERE chat.id = l.chat AND l.rank = l.in_chat
            RETURNING chat.id, chat.last_seq - l.in_chat AS before
        ), m AS (
            INSERT INTO message (id, chat_id, seq, sender_id, kind, text, media, sent_at, client_id, via, mentions, mentions_all, reply_seq,
                via_kind, via_username)
            SELECT a.id, a.chat, c.before + a.rank, a.sender, a.kind, a.text, a.media, a.sent_at, a.client_id, a.via, a.mentions,
                a.mentions_all, a.reply_seq, a.via_kind, a.via_username
            FROM accepted a JOIN c ON c.id = a.chat
            RETURNING id, chat_id, seq, sender_id
        ), r AS (
            UPDATE member SET read_seq = x.seq, read_at = x.sent_at
            FROM (
                SELECT DISTINCT ON (m.chat_id, m.sender_id) m.chat_id, m.sender_id, m.seq, a.sent_at
                FROM m JOIN accepted a ON a.id = m.id ORDER BY m.chat_id, m.sender_id, m.seq DESC
            ) x
            WHERE member.chat_id = x.chat_id AND member.user_id = x.sender_id
        ), n AS (
            INSERT INTO mention (user_id, chat_id, seq, message_id)
            SELECT u.user_id, m.chat_id, m.seq, m.id
            FROM unnest($12::bigint[], $13::bigint[]) AS u(item, user_id) JOIN accepted a ON a.item = u.item JOIN m ON m.id = a.id
            ON CONFLICT DO NOTHING
        ), e AS (
            INSERT INTO event (position, recipients, origin, kept, message_id, body, client_tags, created_at)
            SELECT nextval('event_position'), (SELECT array_agg(user_id ORDER BY user_id) FROM member WHERE chat_id = o.chat_id
                    AND user_id NOT IN (SELECT user_id FROM ignore WHERE ignored_id = o.sender_id)),
                decode(o.origin, 'hex'), true, o.id, '', o.client_tags, o.sent_at
            FROM (SELECT m.id, m.chat_id, m.sender_id, a.origin, a.client_tags, a.sent_at FROM m JOIN accepted a ON a.id = m.id ORDER BY m.id) o,
                (SELECT pg_notify('parley_events', '')) AS publishing
        )
        SELECT a.item, m.id, m.seq FROM m JOIN accepted a ON a.id = m.id
        """
    typealias Row = (item: Int, id: Int64, seq: Int64)

    private var sentAt: [Int64] = []
    private var senders: [Int64] = []
    private var kinds: [String] = []
    private var texts: [String] = []
    private var media: [String?] = []
    private var clientIDs: [String?] = []
    private var chats: [Int64] = []
    private var vias: [String?] = []
    private var viaKinds: [String?] = []
    private var viaUsernames: [String?] = []
    private var mentions: [String?] = []
    private var mentionsAll: [Bool] = []
    private var replySeqs: [Int64?] = []
    private var mentionItems: [Int64] = []
    private var mentioned: [Int64] = []
    private var origins: [String?] = []
    private var clientTags: [String?] = []

    init(_ messages: [NewMessage]) {
        for (index, message) in messages.enumerated() {
            sentAt.append(message.sentAt.storedMilliseconds)
            senders.append(message.sender.id.rawValue)
            kinds.append(message.kind.rawValue)
            texts.append(message.text)
            media.append(MediaColumn.encode(message.media))
            clientIDs.append(message.clientID)
            chats.append(message.chatID.rawValue)
            vias.append(message.via?.name)
            viaKinds.append(message.via?.kind)
            viaUsernames.append(message.via?.username)
            mentions.append(MessageColumns.mentions(message.mentions.map(\.handle)))
            mentionsAll.append(message.mentionsEveryone)
            replySeqs.append(message.replyTo)
            for user in message.mentions {
                mentionItems.append(Int64(index + 1))
                mentioned.append(user.id.rawValue)
            }
            origins.append(message.origin?.hex)
            clientTags.append(PostgresMessageWriter.tagsColumn(message))
        }
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 17)
        bindings.append(sentAt)
        bindings.append(senders)
        bindings.append(kinds)
        bindings.append(texts)
        bindings.append(Self.literal(media))
        bindings.append(Self.literal(clientIDs))
        bindings.append(chats)
        bindings.append(Self.literal(vias))
        bindings.append(Self.literal(mentions))
        bindings.append(mentionsAll)
        bindings.append(Self.literal(replySeqs.map { $0.map(String.init) }))
        bindings.append(mentionItems)
        bindings.append(mentioned)
        bindings.append(Self.literal(origins))
        bindings.append(Self.literal(clientTags))
        bindings.append(Self.literal(viaKinds))
        bindings.append(Self.literal(viaUsernames))
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (item, id, seq) = try row.decode((Int64, Int64, Int64).self)
        return (Int(truncatingIfNeeded: item), id, seq)
    }

    /// A text array literal with NULLs: each value in quotes, its quotes and backslashes
    /// escaped, so any text reads back as it was ("NULL" in quotes is the word).
    static func literal(_ values: [String?]) -> String {
        var literal = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { literal += "," }
            guard let value else {
                literal += "NULL"
                continue
            }
            literal += "\""
            for character in value.unicodeScalars {
                if character == "\"" || character == "\\" { literal += "\\" }
                literal.unicodeScalars.append(character)
            }
            literal += "\""
        }
        return literal + "}"
    }
}
