public import Foundation
public import ParleyCore
import ParleyStore
import PostgresNIO

/// Incoming webhooks.
extension PostgresChatStore {
    public func createHook(
        chat: ChatID, name: String, tokenHash: Data, signingSecret: String?, by user: UserID, at time: Date, url: String?, trigger: String?
    ) async throws -> Hook {
        let made = try await rows(
            """
            INSERT INTO hook (chat_id, name, token_hash, signing_secret, created_by, created_at, url, trigger)
            VALUES (\(chat.rawValue), \(name), \(tokenHash), \(signingSecret), \(user.rawValue), \(time.storedMilliseconds), \(url), \(trigger))
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

    static let hookSelect = """
        SELECT h.id, h.chat_id, h.name, h.created_at, h.signing_secret, h.last_used_at, u.id, u.handle, u.display_name, u.is_bot,
            h.url, h.trigger, h.last_error, h.last_error_at
        FROM hook h JOIN users u ON u.id = h.created_by
        """

    static func hook(_ row: PostgresRow) throws -> (hook: Hook, signingSecret: String?) {
        var cells = Cells(row)
        let id: Int64 = try cells.next()
        let chat: Int64 = try cells.next()
        let name: String = try cells.next()
        let createdAt = try cells.date()
        let secret: String? = try cells.next()
        let lastUsed = try cells.optionalDate()
        let creator = UserRef(
            id: UserID(try cells.next(Int64.self)), handle: try cells.next(), displayName: try cells.next(), isBot: try cells.next())
        let url: String? = try cells.next()
        let trigger: String? = try cells.next()
        let lastError: String? = try cells.next()
        let hook = Hook(
            id: id, chatID: ChatID(chat), name: name, createdBy: creator, createdAt: createdAt, signed: secret != nil, lastUsedAt: lastUsed,
            url: url, trigger: trigger, lastError: lastError, lastErrorAt: try cells.optionalDate())
        return (hook, secret)
    }

    public func hooks(of chat: ChatID) async throws -> [Hook] {
        try await rows("\(unescaped: Self.hookSelect) WHERE h.chat_id = \(chat.rawValue) ORDER BY h.id").map { try Self.hook($0).hook }
    }

    public func hook(tokenHash: Data) async throws -> (hook: Hook, signingSecret: String?)? {
        try await rows("\(unescaped: Self.hookSelect) WHERE h.token_hash = \(tokenHash) AND h.url IS NULL").first.map(Self.hook)
    }

    public func deleteHook(_ id: Int64, in chat: ChatID) async throws -> Bool {
        !(try await rows("DELETE FROM hook WHERE id = \(id) AND chat_id = \(chat.rawValue) RETURNING id").isEmpty)
    }

    public func outgoingHooks(of chat: ChatID) async throws -> [(hook: Hook, signingSecret: String)] {
        try await rows("\(unescaped: Self.hookSelect) WHERE h.chat_id = \(chat.rawValue) AND h.url IS NOT NULL ORDER BY h.id").map {
            let (hook, secret) = try Self.hook($0)
            return (hook, secret ?? "")
        }
    }

    public func hookFailed(_ id: Int64, error: String, at time: Date) async throws {
        try await rows("UPDATE hook SET last_error = \(error), last_error_at = \(time.storedMilliseconds) WHERE id = \(id)")
    }

    public func hookUsed(_ id: Int64, at time: Date) async throws {
        try await rows("UPDATE hook SET last_used_at = \(time.storedMilliseconds) WHERE id = \(id)")
    }
}
