import Foundation
public import ParleyCore
import ParleyStore

/// Reports: any member reports a message of their chat to the server's operators, who
/// read the queue and resolve each with a note.
extension EngineSession {
    public func report(chat: ChatID, seq: Int64, reason: String?) async throws -> Report {
        let (entry, _, user) = try await requireMember(chat)
        var reason = reason?.trimmingSpaces(newlines: true)
        if reason?.isEmpty == true { reason = nil }
        if let reason {
            guard reason.count <= Report.maxReasonLength, !reason.unicodeScalars.contains(where: Limits.isControl) else {
                throw ParleyError(.invalidArgument, "a reason is up to \(Report.maxReasonLength) characters, without control characters")
            }
        }
        let cleared = try await store.membership(of: user.id, in: chat)?.clearedSeq ?? 0
        guard seq > cleared, let message = try await store.message(chat: chat, seq: seq), message.deletedAt == nil,
            message.kind != .system
        else { throw ParleyError(.unknownMessage, "\(Self.name(of: entry.chat)) has no message \(seq) to report") }
        guard try await store.openReports(by: user.id) < Report.maxOpenPerReporter else {
            throw ParleyError(.forbidden, "you have \(Report.maxOpenPerReporter) reports waiting for the operators already")
        }
        let place = entry.chat.kind == .group ? Self.name(of: entry.chat) : "direct"
        return try await store.createReport(
            Report(
                id: 0, chatID: chat, place: place, seq: seq, sender: message.sender, text: message.text, reporter: user.ref, reason: reason,
                createdAt: engine.now))
    }

    /// The reports queue, newest first: open ones, or all (server admins).
    public func reports(includingResolved: Bool) async throws -> [Report] {
        _ = try requireOperator("read and resolve reports")
        return try await store.reports(includingResolved: includingResolved, limit: 200)
    }

    /// Resolves an open report with a note (server admins).
    public func resolveReport(_ id: Int64, note: String?) async throws -> Report {
        let admin = try requireOperator("read and resolve reports")
        var note = note?.trimmingSpaces(newlines: true)
        if note?.isEmpty == true { note = nil }
        if let note {
            guard note.count <= Report.maxReasonLength, !note.unicodeScalars.contains(where: Limits.isControl) else {
                throw ParleyError(.invalidArgument, "a note is up to \(Report.maxReasonLength) characters, without control characters")
            }
        }
        guard let resolved = try await store.resolveReport(id, by: admin.handle, note: note, at: engine.now) else {
            throw ParleyError(.unknownReport, "no open report \(id) (/reports lists them)")
        }
        try await engine.audit(
            .resolveReport, by: admin, target: "report \(id)", detail: "\(resolved.place) #\(resolved.seq) by @\(resolved.sender.handle)",
            reason: note)
        return resolved
    }
}
