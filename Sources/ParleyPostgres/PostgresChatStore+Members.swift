public import Foundation
public import ParleyCore
public import ParleyStore
import PostgresNIO

/// `MembersStore`: chats and who is in them: direct chats, groups made, members and roles, each user's chat list.
extension PostgresChatStore {
    /// Chats matching a condition on `c`, with their direct participants.
    func chats(where condition: PostgresQuery, orderBy order: String = "c.id") async throws -> [Chat] {
        var query = PostgresQuery(unsafeSQL: "SELECT \(PostgresRows.chatColumns) FROM chat c WHERE ", binds: condition.binds)
        query.sql += condition.sql + " ORDER BY \(order)"
        return try await client.withConnection { connection in
            let found = try await connection.query(query, logger: logger).collect()
            return try await PostgresRows.chats(found, on: connection, logger: logger)
        }
    }

    public func chat(id: ChatID) async throws -> Chat? {
        try await chats(where: "c.id = \(id.rawValue)").first
    }

    public func group(handle: String) async throws -> Chat? {
        try await chats(where: "c.handle = \(handle) AND c.kind = 'group'").first
    }

    static func directKey(_ first: UserID, _ second: UserID) -> String {
        "\(min(first, second).rawValue):\(max(first, second).rawValue)"
    }

    public func directChat(between first: UserID, and second: UserID) async throws -> Chat? {
        try await chats(where: "c.direct_key = \(Self.directKey(first, second))").first
    }

    public func openDirectChat(between first: UserID, and second: UserID, at time: Date) async throws -> (chat: Chat, created: Bool) {
        let key = Self.directKey(first, second)
        let now = time.storedMilliseconds
        let created = try await transaction { connection in
            let inserted = try await connection.query(
                """
                INSERT INTO chat (kind, direct_key, user_low, user_high, is_public, created_at, last_activity_at)
                VALUES ('direct', \(key), \(min(first, second).rawValue), \(max(first, second).rawValue), false, \(now), \(now))
                ON CONFLICT (direct_key) DO NOTHING RETURNING id
                """, logger: logger
            ).collect()
            guard let id = try inserted.first?.decode(Int64.self) else { return false }
            try await connection.query(
                """
                INSERT INTO member (chat_id, user_id, role, joined_at, read_at)
                VALUES (\(id), \(first.rawValue), 'member', \(now), \(now)), (\(id), \(second.rawValue), 'member', \(now), \(now))
                """, logger: logger)
            return true
        }
        guard let chat = try await directChat(between: first, and: second) else {
            throw ParleyError(.internalError, "direct chat vanished")
        }
        return (chat, created)
    }

    public func createGroup(handle: String, title: String?, isPublic: Bool, owner: UserID, at time: Date) async throws -> Chat {
        let now = time.storedMilliseconds
        let id: Int64
        do {
            id = try await transaction { connection in
                let rows = try await connection.query(
                    """
                    INSERT INTO chat (kind, handle, title, is_public, created_at, last_activity_at)
                    VALUES ('group', \(handle), \(title), \(isPublic), \(now), \(now)) RETURNING id
                    """, logger: logger
                ).collect()
                guard let id = try rows.first?.decode(Int64.self) else { throw ParleyError(.internalError, "group vanished") }
                try await connection.query(
                    "INSERT INTO member (chat_id, user_id, role, joined_at, read_at) VALUES (\(id), \(owner.rawValue), 'owner', \(now), \(now))",
                    logger: logger)
                return id
            }
        } catch {
            throw Self.uniqueViolation(error, ["chat_handle": ParleyError(.handleTaken, "the group #\(handle) already exists")])
        }
        guard let chat = try await chat(id: ChatID(id)) else { throw ParleyError(.internalError, "group vanished") }
        return chat
    }

    public func membership(of user: UserID, in chat: ChatID) async throws -> Membership? {
        guard
            let row = try await rows(
                """
                SELECT role, joined_at, read_seq, cleared_seq, hidden FROM member
                WHERE chat_id = \(chat.rawValue) AND user_id = \(user.rawValue)
                """
            ).first
        else { return nil }
        var cells = Cells(row)
        return Membership(
            role: Role(rawValue: try cells.next()) ?? .member, joinedAt: try cells.date(), readSeq: try cells.next(),
            clearedSeq: try cells.next(), hidden: try cells.next())
    }

    public func members(of chat: ChatID) async throws -> [Member] {
        try await rows(
            """
            SELECT u.id, u.handle, u.display_name, u.is_bot, mb.role, mb.joined_at, u.avatar
            FROM member mb JOIN users u ON u.id = mb.user_id
            WHERE mb.chat_id = \(chat.rawValue) ORDER BY mb.joined_at, u.id
            """
        ).map { row in
            var cells = Cells(row)
            return Member(
                user: try PostgresRows.userRef(&cells), role: Role(rawValue: try cells.next()) ?? .member, joinedAt: try cells.date(),
                avatar: try cells.next())
        }
    }

    public func addMember(_ user: UserID, to chat: ChatID, role: Role, at time: Date) async throws -> Bool {
        try await client.withConnection { connection in
            try await Self.insertMember(connection, user: user, chat: chat, role: role, at: time, logger: logger)
        }
    }

    /// New members start with everything before they joined already read.
    static func insertMember(
        _ connection: PostgresConnection, user: UserID, chat: ChatID, role: Role, at time: Date, logger: Logger
    ) async throws -> Bool {
        let now = time.storedMilliseconds
        let inserted = try await connection.query(
            """
            INSERT INTO member (chat_id, user_id, role, joined_at, read_seq, read_at)
            SELECT id, \(user.rawValue), \(role.rawValue), \(now), last_seq, \(now) FROM chat WHERE id = \(chat.rawValue)
            ON CONFLICT (chat_id, user_id) DO NOTHING RETURNING 1
            """, logger: logger
        ).collect()
        return !inserted.isEmpty
    }

    public func removeMember(_ user: UserID, from chat: ChatID, newOwner: UserID?) async throws -> Bool {
        try await transaction { connection in
            let removed = try await connection.query(
                "DELETE FROM member WHERE chat_id = \(chat.rawValue) AND user_id = \(user.rawValue) RETURNING 1", logger: logger
            ).collect()
            guard !removed.isEmpty else { return false }
            if let newOwner {
                try await connection.query(
                    "UPDATE member SET role = 'owner' WHERE chat_id = \(chat.rawValue) AND user_id = \(newOwner.rawValue)", logger: logger)
            }
            return true
        }
    }

    public func setRole(_ role: Role, of user: UserID, in chat: ChatID) async throws {
        try await rows("UPDATE member SET role = \(role.rawValue) WHERE chat_id = \(chat.rawValue) AND user_id = \(user.rawValue)")
    }

    public func groups(of user: UserID) async throws -> [Chat] {
        try await chats(
            where: "c.kind = 'group' AND c.id IN (SELECT chat_id FROM member WHERE user_id = \(user.rawValue))", orderBy: "c.handle")
    }

    public func chatIDs(of user: UserID) async throws -> [ChatID] {
        try await rows("SELECT chat_id FROM member WHERE user_id = \(user.rawValue)").map { ChatID(try $0.decode(Int64.self)) }
    }

    public func hideChat(_ chat: ChatID, for user: UserID, at time: Date) async throws {
        try await rows(
            """
            UPDATE member SET hidden = true, read_seq = c.last_seq, cleared_seq = c.last_seq, read_at = \(time.storedMilliseconds)
            FROM chat c WHERE c.id = member.chat_id AND member.chat_id = \(chat.rawValue) AND member.user_id = \(user.rawValue)
            """)
    }

    public func chatList(for user: UserID) async throws -> [ChatSummary] {
        let logger = logger
        return try await client.withConnection { connection in
            let users = { (id: Int64) async throws -> UserRef? in
                guard
                    let row = try await connection.query(
                        "SELECT id, handle, display_name, is_bot FROM users WHERE id = \(id)", logger: logger
                    ).collect().first
                else { return nil }
                var cells = Cells(row)
                return try PostgresRows.userRef(&cells)
            }
            guard let me = try await users(user.rawValue) else { return [] }
            var senders: [Int64: UserRef] = [me.id.rawValue: me]
            var bindings = PostgresBindings()
            bindings.append(user.rawValue)
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: ChatListQuery.postgres, binds: bindings), logger: logger
            ).collect()
            var summaries: [ChatSummary] = []
            for row in rows {
                var cells = Cells(row)
                let chatID = ChatID(try cells.next(Int64.self))
                let kind: ChatKind = try cells.next(String.self) == "direct" ? .direct : .group
                let handle: String? = try cells.next()
                let title: String? = try cells.next()
                let isPublic: Bool = try cells.next()
                let createdAt = try cells.date()
                let lastSeq: Int64 = try cells.next()
                let activity = try cells.date()
                let readSeq: Int64 = try cells.next()
                var peer: UserRef?
                if let peerID = try cells.next(Int64?.self) {
                    peer = UserRef(id: UserID(peerID), handle: try cells.next(), displayName: try cells.next(), isBot: try cells.next())
                } else {
                    _ = (try cells.next(String?.self), try cells.next(String?.self), try cells.next(Bool?.self))
                }
                var participants: [UserRef] = []
                if kind == .direct, let peer { participants = peer.id < me.id ? [peer, me] : [me, peer] }
                let lastID: Int64? = try cells.next()
                let senderID: Int64? = try cells.next()
                let lastKind: String? = try cells.next()
                let lastText: String? = try cells.next()
                let lastMedia: String? = try cells.next()
                let lastClientID: String? = try cells.next()
                let visible: Bool = try cells.next()
                let chat = Chat(
                    id: chatID, kind: kind, handle: handle, title: title, isPublic: isPublic, participants: participants,
                    createdAt: createdAt, topic: try cells.next(), anyoneSetsTopic: try cells.next(), anyoneMentionsAll: try cells.next())
                let lastDeleted = try cells.optionalDate()
                let mentions: Int64 = try cells.next()
                let notify: String? = try cells.next()
                var lastMessage: Message?
                if let lastID, let senderID, visible {
                    let sender: UserRef
                    if let peer, peer.id.rawValue == senderID {
                        sender = peer
                    } else if let known = senders[senderID] {
                        sender = known
                    } else {
                        sender = try await users(senderID) ?? UserRef(id: UserID(senderID), handle: "", displayName: "", isBot: false)
                        senders[senderID] = sender
                    }
                    lastMessage = Message(
                        id: MessageID(lastID), chatID: chatID, seq: lastSeq, sender: sender,
                        kind: MessageKind(rawValue: lastKind ?? "") ?? .text, text: lastText ?? "", media: MediaColumn.decode(lastMedia),
                        sentAt: activity, clientID: lastClientID, deletedAt: lastDeleted)
                }
                summaries.append(
                    ChatSummary(
                        chat: chat, lastMessage: lastMessage, unread: Int(max(0, lastSeq - readSeq)), mentions: Int(mentions),
                        lastActivity: activity, notify: notify.flatMap(NotifyLevel.init(rawValue:))))
            }
            return summaries
        }
    }
}
