/// Reporting a message to the server's operators, and their queue.
public protocol ReportsService: AnyObject, Sendable {
    /// Reports a message of a chat the user is in, with an optional reason.
    func report(chat: ChatID, seq: Int64, reason: String?) async throws -> Report

    /// The reports queue, newest first (server admins).
    func reports(includingResolved: Bool) async throws -> [Report]

    /// Resolves an open report with a note (server admins).
    func resolveReport(_ id: Int64, note: String?) async throws -> Report
}
