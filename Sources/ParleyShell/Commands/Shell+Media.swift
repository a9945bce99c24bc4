import Foundation
import ParleyCore

extension Shell {
    func image(_ input: inout CommandInput) async throws { try await sendMedia(&input, kind: .image) }
    func video(_ input: inout CommandInput) async throws { try await sendMedia(&input, kind: .video) }
    func file(_ input: inout CommandInput) async throws { try await sendMedia(&input, kind: .file) }

    /// `/image [#G|@H] [--no-preview] PATH [CAPTION]`: uploads, then sends. The upload
    /// names the chat, so one the user may not send to is refused before any byte goes.
    /// `/file` takes any file, sent with its name; an image or video stays one.
    private func sendMedia(_ input: inout CommandInput, kind: MediaKind) async throws {
        let usage = "/\(kind.rawValue) [#G|@H] [--no-preview] PATH [CAPTION]"
        let word = try input.target()
        var preview = settings.preview
        if try input.peek() == "--no-preview" {
            _ = try input.word()
            preview = false
        }
        guard let path = try input.word() else { throw ParleyError(.usage, usage) }
        let caption = try input.text()
        let file = try LocalFile(reading: Self.fileURL(path))
        let target = try await target(word)
        guard let recipient = target.recipient else { throw ParleyError(.noCurrentChat, "no chat to send to") }
        let media: MediaInfo
        do {
            media = try await transfer("upload", size: file.size) { progress in
                try await service.uploadMedia(from: file.url, kind: kind, for: recipient, progress: progress)
            }
        } catch let error as ParleyError where error.code == .unsupportedMedia && kind != .file {
            throw ParleyError(error.code, error.message + "; /file sends any file")
        }
        let name = kind == .file ? file.url.lastPathComponent : nil
        let message: Message
        do {
            message = try await service.sendMedia(
                to: recipient, media: media.id, caption: caption, name: name, clientID: nil, via: settings.via)
        } catch let error as ParleyError where error.code == .pending {
            output.result(
                kind.rawValue, ["[pending] \(target.label) \(Format.media(media))  (\(error.message))"], json: ["pending": media])
            return
        }
        try await showSent(message, to: target, command: kind.rawValue, extra: preview ? await previewLines(media) : [])
    }

    /// `/avatar PATH` sets an image as the avatar; `/avatar --remove` clears it.
    func avatar(_ input: inout CommandInput) async throws {
        guard let word = try input.word() else { throw ParleyError(.usage, "/avatar PATH | /avatar --remove") }
        try noMoreArguments(input)
        if word == "--remove" {
            me = try await service.setAvatar(nil)
            output.result("avatar", ["Avatar removed"], json: me)
            return
        }
        _ = try requireMe()
        let file = try LocalFile(reading: Self.fileURL(word))
        let media = try await transfer("upload", size: file.size) { progress in
            try await service.uploadMedia(from: file.url, kind: .image, for: nil, progress: progress)
        }
        me = try await service.setAvatar(media.id)
        output.result("avatar", ["Avatar set: \(Format.media(media))"], json: me)
    }

    /// `/save [#G|@H] SEQ [PATH] [--force]`: the original bytes of an image, video or
    /// file message, into PATH (a file, or a folder for the default name: the file's
    /// own, else `CHAT-SEQ.EXT`); an existing file is only replaced with `--force`.
    func save(_ input: inout CommandInput) async throws {
        let usage = "/save [#G|@H] SEQ [PATH] [--force]"
        let word = try input.target()
        let options = try input.options(flags: ["force"])
        guard (1...2).contains(options.positional.count), let seq = Int64(options.positional[0]) else {
            throw ParleyError(.usage, usage)
        }
        let (chat, found) = try await existingChat(word)
        guard let message = try await service.history(chat: chat.id, limit: 1, before: seq + 1).last, message.seq == seq else {
            throw ParleyError(.unknownMessage, "no message \(seq) in \(found.label)")
        }
        guard let media = message.media else { throw ParleyError(.noMedia, "message \(seq) is text, with nothing to save") }
        let name = FileName.cleaned(media.name) ?? FileName.cleaned("\(found.label.dropFirst())-\(seq).\(media.fileExtension)") ?? "file"
        // The sender's name is a name, never a path: it lands in the folder named (by
        // default the current one), whatever it says.
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        var destination = options.positional.count == 2 ? Self.fileURL(options.positional[1]) : here.appendingPathComponent(name)
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: destination.path, isDirectory: &isFolder), isFolder.boolValue {
            destination = destination.appendingPathComponent(name)
        }
        let force = options.flags.contains("force")
        let written = try await transfer("download", size: media.size) { progress in
            try await service.downloadMedia(media.id, to: destination, replace: force, progress: progress)
        }
        output.result(
            "save", ["Saved \(Format.media(media)) to \(destination.path)"],
            json: ["path": destination.path, "bytes": String(written), "media": media.id])
    }

    /// Runs a transfer with a progress bar (on a terminal, over 1 MiB), wiped before
    /// the caller prints its result.
    private func transfer<T: Sendable>(
        _ label: String, size: Int64, _ body: (TransferProgress?) async throws -> T
    ) async throws -> T {
        let (bar, progress) = ProgressBar.callback(label: label, size: size, enabled: settings.showProgress)
        defer { bar?.finish() }
        return try await body(progress)
    }

    /// Preview lines for an image (empty when previews are off, or it cannot be shown).
    /// The bytes are fetched once into the data folder's cache.
    func previewLines(_ media: MediaInfo) async -> [String] {
        guard media.kind == .image, media.type == "image/png" || media.type == "image/jpeg" else { return [] }
        let cache = settings.dataFolder.appendingPathComponent("cache").appendingPathComponent("media")
        let file = cache.appendingPathComponent("\(media.id).\(media.fileExtension)")
        do {
            if !FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
                try await service.downloadMedia(media.id, to: file, replace: true, progress: nil)
            }
            let image = try PixelImage.decode(try Data(contentsOf: file), type: media.type)
            return ImagePreview.lines(image, columns: max(8, min(48, settings.terminalColumns - 2)))
        } catch {
            return []
        }
    }

    /// A path as typed: `~/x` is in the home folder, a relative path in the working one.
    static func fileURL(_ path: String) -> URL {
        if path == "~" || path.hasPrefix("~/") {
            return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(String(path.dropFirst(2)))
        }
        return URL(fileURLWithPath: path)
    }
}
