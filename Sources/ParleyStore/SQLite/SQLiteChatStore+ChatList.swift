import Foundation
import GRDB
import ParleyCore

extension SQLiteChatStore {
    /// One query over the user's memberships: the chat, the peer of a direct chat, the
    /// last message (unless cleared) and the unread count from the read marker. A chat
    /// the user deleted stays out until a message arrives after their `cleared_seq`.
    /// Sorting happens here rather than in SQL, which would carry every column through
    /// its sorter.
    public func chatList(for user: UserID) async throws -> [ChatSummary] {
        try await pool.read { db in
            guard
                let meRow = try Row.fetchOne(
                    db, sql: "SELECT id, handle, display_name, is_bot FROM user WHERE id = ?", arguments: [user.rawValue])
            else { return [] }
            let me = UserRef(id: UserID(meRow[0]), handle: meRow[1], displayName: meRow[2], isBot: meRow[3])
            let statement = try db.cachedStatement(
                sql: """
                    SELECT c.id, c.kind, c.handle, c.title, c.is_public, c.created_at, c.last_seq, c.last_activity_at,
                           mb.read_seq, pu.id, pu.handle, pu.display_name, pu.is_bot,
                           m.id, m.sender_id, m.kind, m.text, m.media, m.sent_at, m.client_id, s.handle, s.display_name, s.is_bot
                    FROM member mb
                    JOIN chat c ON c.id = mb.chat_id
                    LEFT JOIN member pm ON c.kind = 'direct' AND pm.chat_id = c.id AND pm.user_id != mb.user_id
                    LEFT JOIN user pu ON pu.id = pm.user_id
                    LEFT JOIN message m ON m.chat_id = c.id AND m.seq = c.last_seq AND m.seq > mb.cleared_seq
                    LEFT JOIN user s ON s.id = m.sender_id
                    WHERE mb.user_id = ? AND NOT (mb.hidden = 1 AND c.last_seq <= mb.cleared_seq)
                    """)
            var summaries: [(activity: Int64, summary: ChatSummary)] = []
            let rows = try Row.fetchCursor(statement, arguments: [user.rawValue])
            while let row = try rows.next() {
                let chatID = ChatID(row[0] as Int64)
                let kind: ChatKind = (row[1] as String) == "direct" ? .direct : .group
                var participants: [UserRef] = []
                if kind == .direct, let peerID = row[9] as Int64? {
                    let peer = UserRef(id: UserID(peerID), handle: row[10], displayName: row[11], isBot: row[12])
                    participants = peer.id < me.id ? [peer, me] : [me, peer]
                }
                let chat = Chat(
                    id: chatID, kind: kind, handle: row[2], title: row[3], isPublic: row[4], participants: participants,
                    createdAt: Rows.date(row[5] as Int64))
                let lastSeq: Int64 = row[6]
                let activity: Int64 = row[7]
                var lastMessage: Message?
                if let messageID = row[13] as Int64? {
                    let sender = UserRef(id: UserID(row[14] as Int64), handle: row[20], displayName: row[21], isBot: row[22])
                    lastMessage = Message(
                        id: MessageID(messageID), chatID: chatID, seq: lastSeq, sender: sender,
                        kind: MessageKind(rawValue: row[15]) ?? .text, text: row[16], media: row[17], sentAt: Rows.date(row[18] as Int64),
                        clientID: row[19])
                }
                let unread = Int(max(0, lastSeq - (row[8] as Int64)))
                summaries.append(
                    (activity, ChatSummary(chat: chat, lastMessage: lastMessage, unread: unread, lastActivity: Rows.date(activity))))
            }
            summaries.sort { $0.activity != $1.activity ? $0.activity > $1.activity : $0.summary.chat.id > $1.summary.chat.id }
            return summaries.map(\.summary)
        }
    }
}
