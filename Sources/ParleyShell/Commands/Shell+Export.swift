import Foundation
import ParleyCore

/// `/export #chat FILE [--json]`: a chat's whole history to a file, oldest first, as the
/// logs write it (or a JSON object a line).
extension Shell {
    func export(_ input: inout CommandInput) async throws {
        if try input.peek() == "me" {
            _ = try input.word()
            return try await exportAccount(&input, handle: nil)
        }
        if try input.peek() == "account" {
            _ = try input.word()
            guard let handle = try input.word() else { throw ParleyError(.usage, "/export account @H FILE") }
            return try await exportAccount(&input, handle: handle)
        }
        let usage = "/export [#G|@H] FILE [--json] | /export me FILE | /export account @H FILE"
        let target = try input.target()
        let options = try input.options(values: [], flags: ["json"])
        guard options.positional.count == 1, let path = options.positional.first else { throw ParleyError(.usage, usage) }
        let (chat, _) = try await existingChat(target)
        let json = options.flags.contains("json")
        let file = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        // Written beside it under a temporary name and renamed once whole: an export that
        // fails part way (the server gone, the disk full) leaves nothing under its name.
        let partial = try AtomicFile(temporaryIn: file.deletingLastPathComponent())
        // Pages come newest first: their starts are noted on the way back, then each is
        // read again and written oldest first, so memory holds one page, not the chat.
        let page = Limits.maxPageSize
        var starts: [Int64?] = [nil]
        while let last = starts.last, let oldest = try await service.history(chat: chat.id, limit: page, before: last).first?.seq {
            starts.append(oldest)
        }
        let encoder = output.encoder
        var count = 0
        for before in starts.dropLast().reversed() {
            var text = ""
            for message in try await service.history(chat: chat.id, limit: page, before: before) {
                if json {
                    text += String(decoding: try encoder.encode(message), as: UTF8.self) + "\n"
                } else {
                    text += ChatLogs.line("\(message.seq). " + Self.exported(message), at: message.sentAt)
                }
                count += 1
            }
            try partial.write(Data(text.utf8))
        }
        try partial.commit(to: file, replace: true)
        let label = Format.label(chat, me: me?.id)
        output.result("export", ["Wrote \(count) message\(count == 1 ? "" : "s") of \(label) to \(file.path)"], json: ["count": count])
    }

    private static func exported(_ message: Message) -> String {
        if message.isDeleted { return "<\(Format.author(message))> (deleted)" }
        return "<\(Format.author(message))> " + ChatLogs.body(message) + (message.editedAt != nil ? " (edited)" : "")
    }
}
