/// An account's export of everything the server keeps of it.
public protocol ExportService: AnyObject, Sendable {
    /// What the server holds about the signed-in account (`handle`: another's, for an
    /// operator), with the first page of its messages, or only the page after `after`.
    func exportAccount(handle: String?, after: Int64?) async throws -> AccountExport
}
