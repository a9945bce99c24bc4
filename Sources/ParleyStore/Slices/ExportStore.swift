public import ParleyCore

/// What an account's export holds.
public protocol ExportStore: Sendable {
    /// For an export: the account's phone, the live messages it sent after message id
    /// `after` (oldest first), its reactions and the media it uploaded.
    func phone(of user: UserID) async throws -> String?
    func messagesSent(by user: UserID, after id: Int64, limit: Int) async throws -> [Message]
    func reactions(by user: UserID, limit: Int) async throws -> [AccountExport.Reaction]
    func uploads(by user: UserID, limit: Int) async throws -> [String]

    /// The rest of what an export holds of `user` (reminders, reports filed, hooks made,
    /// identities, watches, invites, sign-up codes), each list at most `limit` long.
    func accountRecords(of user: UserID, limit: Int) async throws -> AccountExport.Records
}
