import Foundation
import ParleyCore

/// `/report [#G|@H] SEQ [REASON]` for everyone; `/reports [--all]` and
/// `/reports resolve ID [NOTE]` for the server's operators.
extension Shell {
    func report(_ input: inout CommandInput) async throws {
        let usage = "/report [#G|@H] SEQ [REASON]"
        let word = try input.target()
        guard let text = try input.word(), let seq = Int64(text), seq > 0 else { throw ParleyError(.usage, usage) }
        let reason = try input.text()
        let target = try await target(word)
        let chat: Chat
        if let known = target.chat {
            chat = known
        } else if let peer = target.peer, let direct = try await service.directChat(with: peer.id) {
            chat = direct
        } else {
            throw ParleyError(.unknownMessage, "no message \(seq) there to report")
        }
        let made = try await service.report(chat: chat.id, seq: seq, reason: reason.isEmpty ? nil : reason)
        output.result(
            "report", ["Reported message \(made.seq) of \(made.place) by @\(made.sender.handle) to the operators (report \(made.id))"],
            json: made)
    }

    func reports(_ input: inout CommandInput) async throws {
        if try input.peek() == "resolve" {
            _ = try input.word()
            guard let text = try input.word(), let id = Int64(text) else { throw ParleyError(.usage, "/reports resolve ID [NOTE]") }
            let note = try input.text()
            let resolved = try await service.resolveReport(id, note: note.isEmpty ? nil : note)
            output.result(
                "reports", ["Resolved report \(resolved.id)\(resolved.note.map { ": \(Sanitizer.line($0))" } ?? "")"], json: resolved)
            return
        }
        let options = try input.options(flags: ["all"])
        guard options.positional.isEmpty else { throw ParleyError(.usage, "/reports [--all] | /reports resolve ID [NOTE]") }
        let all = options.flags.contains("all")
        let queue = try await service.reports(includingResolved: all)
        guard !queue.isEmpty else {
            output.result("reports", [all ? "No reports" : "No open reports"], json: queue)
            return
        }
        var lines: [String] = []
        for report in queue {
            let reason = report.reason.map { " — \(Sanitizer.line($0))" } ?? ""
            lines.append(
                "\(report.id)  \(Format.time(report.createdAt))  @\(report.reporter.handle) reports \(report.place) #\(report.seq)"
                    + " by @\(report.sender.handle)\(reason)")
            lines.append("      \"\(Sanitizer.line(String(report.text.prefix(200))))\"")
            if let resolvedAt = report.resolvedAt {
                lines.append(
                    "      resolved \(Format.time(resolvedAt)) by @\(report.resolvedBy ?? "?")\(report.note.map { ": \(Sanitizer.line($0))" } ?? "")"
                )
            }
        }
        output.result("reports", lines, json: queue)
    }
}
