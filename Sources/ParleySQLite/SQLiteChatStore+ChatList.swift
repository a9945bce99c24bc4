import Foundation
import GRDB
import GRDBSQLite
public import ParleyCore
import ParleyStore

extension SQLiteChatStore {
    /// One query over the user's memberships (`ChatListQuery`), with the unread count
    /// from the read marker. The sender of a last message is the user, the peer, or a
    /// group member looked up once per list. Sorting happens here rather than in SQL,
    /// which would carry every column through its sorter.
    public func chatList(for user: UserID) async throws -> [ChatSummary] {
        try await pool.read { db in
            let users = try db.cachedStatement(sql: "SELECT id, handle, display_name, is_bot FROM user WHERE id = ?")
            func lookUp(_ id: Int64) throws -> UserRef? {
                try Row.fetchOne(users, arguments: [id]).map { UserRef(id: UserID($0[0]), handle: $0[1], displayName: $0[2], isBot: $0[3]) }
            }
            guard let me = try lookUp(user.rawValue) else { return [] }
            var senders: [Int64: UserRef] = [me.id.rawValue: me]
            let statement = try db.cachedStatement(sql: ChatListQuery.sqlite)
            // The hottest read of all: columns are read straight from SQLite, which halves
            // the time of GRDB's row decoding for a thousand rows.
            var summaries: [ChatSummary] = []
            var activities: [Int64] = []
            try statement.setArguments([user.rawValue])
            let raw = RawColumns(statement: statement.sqliteStatement)
            defer { sqlite3_reset(raw.statement) }
            while true {
                let step = sqlite3_step(raw.statement)
                if step == SQLITE_DONE { break }
                guard step == SQLITE_ROW else { throw DatabaseError(resultCode: ResultCode(rawValue: step)) }
                let chatID = ChatID(raw.int(0))
                let kind: ChatKind = raw.text(1) == "direct" ? .direct : .group
                var participants: [UserRef] = []
                var peer: UserRef?
                if kind == .direct, !raw.isNull(9) {
                    let found = UserRef(id: UserID(raw.int(9)), handle: raw.text(10), displayName: raw.text(11), isBot: raw.int(12) != 0)
                    participants = found.id < me.id ? [found, me] : [me, found]
                    peer = found
                }
                let chat = Chat(
                    id: chatID, kind: kind, handle: raw.optionalText(2), title: raw.optionalText(3), isPublic: raw.int(4) != 0,
                    participants: participants, createdAt: Rows.date(raw.int(5)), topic: raw.optionalText(20),
                    anyoneSetsTopic: raw.int(21) != 0, anyoneMentionsAll: raw.int(22) != 0)
                let lastSeq = raw.int(6)
                let activity = raw.int(7)
                var lastMessage: Message?
                if !raw.isNull(13), raw.int(19) != 0 {
                    let senderID = raw.int(14)
                    let sender: UserRef
                    if let peer, peer.id.rawValue == senderID {
                        sender = peer
                    } else if let known = senders[senderID] {
                        sender = known
                    } else {
                        sender = try lookUp(senderID) ?? UserRef(id: UserID(senderID), handle: "", displayName: "", isBot: false)
                        senders[senderID] = sender
                    }
                    lastMessage = Message(
                        id: MessageID(raw.int(13)), chatID: chatID, seq: lastSeq, sender: sender,
                        kind: MessageKind(rawValue: raw.text(15)) ?? .text, text: raw.text(16),
                        media: MediaColumn.decode(raw.optionalText(17)),
                        sentAt: Rows.date(activity), clientID: raw.optionalText(18),
                        deletedAt: raw.isNull(23) ? nil : Rows.date(raw.int(23)))
                }
                let unread = Int(max(0, lastSeq - raw.int(8)))
                summaries.append(
                    ChatSummary(
                        chat: chat, lastMessage: lastMessage, unread: unread, mentions: Int(raw.int(24)), lastActivity: Rows.date(activity),
                        notify: raw.optionalText(25).flatMap(NotifyLevel.init(rawValue:)))
                )
                activities.append(activity)
            }
            // Sort small keys, then gather: moving whole summaries around costs more.
            let order = summaries.indices.sorted { a, b in
                activities[a] != activities[b] ? activities[a] > activities[b] : summaries[a].chat.id > summaries[b].chat.id
            }
            return order.map { summaries[$0] }
        }
    }
}

/// Reads the current row of a stepped SQLite statement.
private struct RawColumns {
    let statement: OpaquePointer

    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }
    func int(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }

    func text(_ index: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func optionalText(_ index: Int32) -> String? { isNull(index) ? nil : text(index) }
}
