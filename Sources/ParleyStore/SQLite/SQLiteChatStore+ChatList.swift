import Foundation
import GRDB
import ParleyCore

extension SQLiteChatStore {
    /// One query over the user's memberships: the chat, the peer of a direct chat, the
    /// last message (unless cleared) and the unread count from the read marker.
    public func chatList(for user: UserID) async throws -> [ChatSummary] {
        try await pool.read { db in
            guard
                let meRow = try Row.fetchOne(
                    db, sql: "SELECT id, handle, display_name, is_bot FROM user WHERE id = ?", arguments: [user.rawValue])
            else { return [] }
            let me = UserRef(id: UserID(meRow[0]), handle: meRow[1], displayName: meRow[2], isBot: meRow[3])
            let statement = try db.cachedStatement(
                sql: """
                    SELECT \(Rows.chatColumns), c.last_seq, c.last_activity_at, mb.read_seq,
                           pu.id, pu.handle, pu.display_name, pu.is_bot,
                           \(Rows.messageColumns)
                    FROM member mb
                    JOIN chat c ON c.id = mb.chat_id
                    LEFT JOIN member pm ON c.kind = 'direct' AND pm.chat_id = c.id AND pm.user_id != mb.user_id
                    LEFT JOIN user pu ON pu.id = pm.user_id
                    LEFT JOIN message m ON m.chat_id = c.id AND m.seq = c.last_seq AND m.seq > mb.cleared_seq
                    LEFT JOIN user s ON s.id = m.sender_id
                    WHERE mb.user_id = ? AND mb.hidden = 0
                    ORDER BY c.last_activity_at DESC, c.id DESC
                    """)
            var summaries: [ChatSummary] = []
            let rows = try Row.fetchCursor(statement, arguments: [user.rawValue])
            while let row = try rows.next() {
                var participants: [UserRef] = []
                if row[1] == ChatKind.direct.rawValue, let peerID: Int64 = row[9] {
                    participants = [me, UserRef(id: UserID(peerID), handle: row[10], displayName: row[11], isBot: row[12])]
                }
                let chat = Rows.chat(row, participants: participants)
                let lastSeq: Int64 = row[6]
                let readSeq: Int64 = row[8]
                let lastMessage: Message? = (row[13] as Int64?) == nil ? nil : Rows.message(row, from: 13)
                summaries.append(
                    ChatSummary(
                        chat: chat, lastMessage: lastMessage, unread: Int(max(0, lastSeq - readSeq)),
                        lastActivity: Rows.date(row[7] as Int64)))
            }
            return summaries
        }
    }
}
