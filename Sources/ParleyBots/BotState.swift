public import Foundation

/// What the bot host keeps for its plugins between runs: small values by key
/// (`state_get` / `state_set`), the last message of each chat each bot was handed (so a
/// restarted bot is not handed it again) and its schedules. The host owns this protocol;
/// whoever embeds the host says where it is kept (the shell and `parley bot`: the data
/// folder's `bots.sqlite`, `BotStateStore`).
public protocol BotState: Sendable {
    /// The JSON stored under `key`, or nil.
    func value(bot: String, key: String) throws -> Data?
    /// Stores `value` under `key`; nil removes the key.
    func set(bot: String, key: String, value: Data?) throws
    /// The sequence number of the last message of each chat handed to `bot`.
    func cursors(bot: String) throws -> [Int64: Int64]
    /// Moves the cursor of `bot` in `chat` forward to `seq` (never back).
    func advance(bot: String, chat: Int64, to seq: Int64) throws
    /// A bot's schedules: each one's name, its rule and data as stored, and when it fires next.
    func schedules(bot: String) throws -> [(name: String, spec: Data, next: Date)]
    /// Keeps a schedule, replacing one of the same name.
    func setSchedule(bot: String, name: String, spec: Data, next: Date) throws
    /// Moves a schedule to its next time, or removes it (`next` nil).
    func reschedule(bot: String, name: String, next: Date?) throws
    func close() throws
}

extension BotRuntime {
    /// The largest value a bot may store under one key.
    public static let maxStateValueBytes = 64 * 1024
}
