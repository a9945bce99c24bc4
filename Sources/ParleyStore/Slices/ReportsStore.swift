public import Foundation
public import ParleyCore

/// Messages reported to the server's operators.
public protocol ReportsStore: Sendable {
    /// Keeps a report; a reporter's open report of the same message is returned instead.
    func createReport(_ report: Report) async throws -> Report

    /// Open reports (or all, newest first, with `resolved`), up to `limit`.
    func reports(includingResolved: Bool, limit: Int) async throws -> [Report]

    /// A reporter's open reports.
    func openReports(by reporter: UserID) async throws -> Int

    /// Marks an open report resolved; nil when there is no open report with that id.
    func resolveReport(_ id: Int64, by operatorHandle: String, note: String?, at time: Date) async throws -> Report?
}
