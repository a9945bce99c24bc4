public import Foundation
import GRDB
public import ParleyCore
public import ParleyStore

/// `MembersStore`: chats and who is in them: direct chats, groups made, members and roles, each user's chat list.
extension SQLiteChatStore {
    public func chat(id: ChatID) async throws -> Chat? {
        try await pool.read { db in try Rows.chat(db, id: id) }
    }

    public func group(handle: String) async throws -> Chat? {
        try await pool.read { db in
            try Rows.chats(
                db, sql: "SELECT \(Rows.chatColumns) FROM chat c WHERE c.handle = ? AND c.kind = 'group'", arguments: [handle]
            ).first
        }
    }

    static func directKey(_ first: UserID, _ second: UserID) -> String {
        "\(min(first, second).rawValue):\(max(first, second).rawValue)"
    }

    public func directChat(between first: UserID, and second: UserID) async throws -> Chat? {
        try await pool.read { db in
            try Rows.chats(
                db, sql: "SELECT \(Rows.chatColumns) FROM chat c WHERE c.direct_key = ?",
                arguments: [Self.directKey(first, second)]
            ).first
        }
    }

    public func openDirectChat(between first: UserID, and second: UserID, at time: Date) async throws -> (chat: Chat, created: Bool) {
        let key = Self.directKey(first, second)
        let now = time.storedMilliseconds
        return try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO chat (kind, direct_key, user_low, user_high, is_public, created_at, last_activity_at)
                    VALUES ('direct', ?, ?, ?, 0, ?, ?) ON CONFLICT (direct_key) DO NOTHING
                    """,
                arguments: [key, min(first, second).rawValue, max(first, second).rawValue, now, now])
            let created = db.changesCount > 0
            if created {
                let chatID = db.lastInsertedRowID
                for user in [first, second] {
                    try db.execute(
                        sql: "INSERT INTO member (chat_id, user_id, role, joined_at, read_at) VALUES (?, ?, 'member', ?, ?)",
                        arguments: [chatID, user.rawValue, now, now])
                }
            }
            guard
                let chat = try Rows.chats(
                    db, sql: "SELECT \(Rows.chatColumns) FROM chat c WHERE c.direct_key = ?", arguments: [key]
                ).first
            else { throw ParleyError(.internalError, "direct chat vanished") }
            return (chat, created)
        }
    }

    public func createGroup(handle: String, title: String?, isPublic: Bool, owner: UserID, at time: Date) async throws -> Chat {
        let now = time.storedMilliseconds
        do {
            return try await pool.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO chat (kind, handle, title, is_public, created_at, last_activity_at)
                        VALUES ('group', ?, ?, ?, ?, ?)
                        """,
                    arguments: [handle, title, isPublic, now, now])
                let chatID = db.lastInsertedRowID
                try db.execute(
                    sql: "INSERT INTO member (chat_id, user_id, role, joined_at, read_at) VALUES (?, ?, 'owner', ?, ?)",
                    arguments: [chatID, owner.rawValue, now, now])
                guard let chat = try Rows.chat(db, id: ChatID(chatID)) else {
                    throw ParleyError(.internalError, "group vanished")
                }
                return chat
            }
        } catch let error as DatabaseError {
            throw Self.uniqueViolation(error, ["chat.handle": ParleyError(.handleTaken, "the group #\(handle) already exists")])
        }
    }

    public func membership(of user: UserID, in chat: ChatID) async throws -> Membership? {
        try await pool.read { db in
            try Row.fetchOne(
                db,
                sql: "SELECT role, joined_at, read_seq, cleared_seq, hidden FROM member WHERE chat_id = ? AND user_id = ?",
                arguments: [chat.rawValue, user.rawValue]
            ).map {
                Membership(
                    role: Role(rawValue: $0[0]) ?? .member, joinedAt: Rows.date($0[1] as Int64), readSeq: $0[2],
                    clearedSeq: $0[3], hidden: $0[4])
            }
        }
    }

    public func members(of chat: ChatID) async throws -> [Member] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.id, u.handle, u.display_name, u.is_bot, mb.role, mb.joined_at, u.avatar
                    FROM member mb JOIN user u ON u.id = mb.user_id
                    WHERE mb.chat_id = ? ORDER BY mb.joined_at, u.id
                    """,
                arguments: [chat.rawValue]
            ).map {
                Member(
                    user: UserRef(id: UserID($0[0]), handle: $0[1], displayName: $0[2], isBot: $0[3]),
                    role: Role(rawValue: $0[4]) ?? .member, joinedAt: Rows.date($0[5] as Int64), avatar: $0[6])
            }
        }
    }

    public func addMember(_ user: UserID, to chat: ChatID, role: Role, at time: Date) async throws -> Bool {
        try await pool.write { db in try Self.insertMember(db, user: user, chat: chat, role: role, at: time) }
    }

    /// New members start with everything before they joined already read.
    static func insertMember(_ db: Database, user: UserID, chat: ChatID, role: Role, at time: Date) throws -> Bool {
        try db.execute(
            sql: """
                INSERT INTO member (chat_id, user_id, role, joined_at, read_seq, read_at)
                SELECT id, ?, ?, ?, last_seq, ? FROM chat WHERE id = ?
                ON CONFLICT (chat_id, user_id) DO NOTHING
                """,
            arguments: [user.rawValue, role.rawValue, time.storedMilliseconds, time.storedMilliseconds, chat.rawValue])
        return db.changesCount > 0
    }

    public func removeMember(_ user: UserID, from chat: ChatID, newOwner: UserID?) async throws -> Bool {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM member WHERE chat_id = ? AND user_id = ?", arguments: [chat.rawValue, user.rawValue])
            let removed = db.changesCount > 0
            if removed, let newOwner {
                try db.execute(
                    sql: "UPDATE member SET role = 'owner' WHERE chat_id = ? AND user_id = ?",
                    arguments: [chat.rawValue, newOwner.rawValue])
            }
            return removed
        }
    }

    public func setRole(_ role: Role, of user: UserID, in chat: ChatID) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE member SET role = ? WHERE chat_id = ? AND user_id = ?",
                arguments: [role.rawValue, chat.rawValue, user.rawValue])
        }
    }

    public func groups(of user: UserID) async throws -> [Chat] {
        try await pool.read { db in
            try Rows.chats(
                db,
                sql: """
                    SELECT \(Rows.chatColumns) FROM member mb JOIN chat c ON c.id = mb.chat_id
                    WHERE mb.user_id = ? AND c.kind = 'group' ORDER BY c.handle
                    """,
                arguments: [user.rawValue])
        }
    }

    public func chatIDs(of user: UserID) async throws -> [ChatID] {
        try await pool.read { db in
            try Int64.fetchAll(db, sql: "SELECT chat_id FROM member WHERE user_id = ?", arguments: [user.rawValue])
                .map { ChatID($0) }
        }
    }

    public func hideChat(_ chat: ChatID, for user: UserID, at time: Date) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE member SET hidden = 1,
                        read_seq = (SELECT last_seq FROM chat WHERE id = ?1),
                        cleared_seq = (SELECT last_seq FROM chat WHERE id = ?1), read_at = ?3
                    WHERE chat_id = ?1 AND user_id = ?2
                    """,
                arguments: [chat.rawValue, user.rawValue, time.storedMilliseconds])
        }
    }
}
