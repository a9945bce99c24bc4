public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// Incoming webhooks.
extension PostgresChatStore {
    public func createHook(chat: ChatID, name: String, tokenHash: Data, signingSecret: String?, by user: UserID, at time: Date)
        async throws -> Hook
    {
        let made = try await rows(
            """
            INSERT INTO hook (chat_id, name, token_hash, signing_secret, created_by, created_at)
            VALUES (\(chat.rawValue), \(name), \(tokenHash), \(signingSecret), \(user.rawValue), \(time.storedMilliseconds))
            RETURNING id
            """)
        guard let inserted = made.first else { throw ParleyError(.internalError, "a hook insert returned no id") }
        var cells = Cells(inserted)
        let id: Int64 = try cells.next()
        guard let row = try await rows("\(unescaped: Self.hookSelect) WHERE h.id = \(id)").first else {
            throw ParleyError(.internalError, "a hook just made is not there")
        }
        return try Self.hook(row).hook
    }

    private static let hookSelect = """
        SELECT h.id, h.chat_id, h.name, h.created_at, h.signing_secret, h.last_used_at, u.id, u.handle, u.display_name, u.is_bot
        FROM hook h JOIN users u ON u.id = h.created_by
        """

    private static func hook(_ row: PostgresRow) throws -> (hook: Hook, signingSecret: String?) {
        var cells = Cells(row)
        let id: Int64 = try cells.next()
        let chat: Int64 = try cells.next()
        let name: String = try cells.next()
        let createdAt = try cells.date()
        let secret: String? = try cells.next()
        let lastUsed = try cells.optionalDate()
        let creator = UserRef(
            id: UserID(try cells.next(Int64.self)), handle: try cells.next(), displayName: try cells.next(), isBot: try cells.next())
        let hook = Hook(
            id: id, chatID: ChatID(chat), name: name, createdBy: creator, createdAt: createdAt, signed: secret != nil, lastUsedAt: lastUsed)
        return (hook, secret)
    }

    public func hooks(of chat: ChatID) async throws -> [Hook] {
        try await rows("\(unescaped: Self.hookSelect) WHERE h.chat_id = \(chat.rawValue) ORDER BY h.id").map { try Self.hook($0).hook }
    }

    public func hook(tokenHash: Data) async throws -> (hook: Hook, signingSecret: String?)? {
        try await rows("\(unescaped: Self.hookSelect) WHERE h.token_hash = \(tokenHash)").first.map(Self.hook)
    }

    public func deleteHook(_ id: Int64, in chat: ChatID) async throws -> Bool {
        !(try await rows("DELETE FROM hook WHERE id = \(id) AND chat_id = \(chat.rawValue) RETURNING id").isEmpty)
    }

    public func hookUsed(_ id: Int64, at time: Date) async throws {
        try await rows("UPDATE hook SET last_used_at = \(time.storedMilliseconds) WHERE id = \(id)")
    }
}
