import Foundation
import ParleyCore

/// `/export me FILE` (and an operator's `/export account @H FILE`): everything the
/// server holds about the account, as one JSON object in FILE, and the files it uploaded
/// in the folder FILE-media beside it.
extension Shell {
    func exportAccount(_ input: inout CommandInput, handle: String?) async throws {
        let options = try input.options()
        guard options.positional.count == 1, let path = options.positional.first else {
            throw ParleyError(.usage, "/export me FILE | /export account @H FILE")
        }
        let file = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        guard !FileManager.default.fileExists(atPath: file.path) else {
            throw ParleyError(.fileExists, "\(file.path) exists already; name a new file")
        }
        var export = try await service.exportAccount(handle: handle, after: nil)
        var next = export.next
        while let after = next {
            let page = try await service.exportAccount(handle: handle, after: after)
            export.messages += page.messages
            export.hookPosts += page.hookPosts
            next = page.next
        }
        export.next = nil
        let data = try output.encoder.encode(export)
        try AtomicFile.replaceContents(of: file, with: data)
        let folder = URL(fileURLWithPath: file.path + "-media")
        if !export.uploads.isEmpty {
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw ParleyError(.fileError, "cannot make \(folder.path)")
            }
        }
        // A file's name is its message's: the id, then that name.
        var names: [String: String] = [:]
        for message in export.messages { if let media = message.media, let name = media.name { names[media.id] = name } }
        var saved = 0
        for media in export.uploads {
            let name = media.id + ((names[media.id] ?? media.name).map { "-" + Self.safeFileName($0) } ?? "")
            _ = try await service.downloadMedia(media.id, to: folder.appendingPathComponent(name), replace: true, progress: nil)
            saved += 1
        }
        let files = saved > 0 ? " and \(saved) files in \(folder.path)" : ""
        output.result(
            "export",
            [
                "Wrote @\(Sanitizer.line(export.user.handle))'s data to \(file.path): \(export.messages.count) messages"
                    + (export.hookPosts.isEmpty ? "" : " (and \(export.hookPosts.count) posts of its hooks)")
                    + ", \(export.memberships.count) chats, \(export.reactions.count) reactions, \(export.sessions.count) sessions, "
                    + "\(export.records.reminders.count) reminders, \(export.bots.count) bots, \(export.records.hooks.count) hooks\(files)"
            ],
            json: [
                "file": file.path, "messages": "\(export.messages.count)", "hook_posts": "\(export.hookPosts.count)", "files": "\(saved)",
            ])
    }

    /// A name from elsewhere as one safe path component: no separators, no leading dot.
    static func safeFileName(_ name: String) -> String {
        let cleaned = String(name.unicodeScalars.map { $0 == "/" || $0 == "\\" || $0.value < 0x20 ? "_" : Character($0) }.prefix(100))
        return cleaned.hasPrefix(".") ? "_" + cleaned.dropFirst() : cleaned
    }
}
