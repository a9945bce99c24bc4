public import Foundation
import ParleyCore
import Synchronization

/// Each chat written to a plain-text file of its own as its messages come, as irssi's
/// autolog does: `DIR/#swift.2026-11.log`, `DIR/@bob.2026-11.log` (a file a month, by
/// local time), one line a message with its date and time, edits and deletions noted.
/// Everything others wrote goes through the terminal-safe sanitizer first.
public final class ChatLogs: Sendable {
    public let folder: URL
    private let writing = Mutex(())

    public init(folder: URL) throws {
        self.folder = folder
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ParleyError(.fileError, "cannot make the log folder \(folder.path): \(error.localizedDescription)")
        }
    }

    /// Where `/autolog on` keeps its choice: a file in the data folder naming the log
    /// folder, read at the next start when neither `--log-dir` nor `$PARLEY_LOG_DIR`
    /// says otherwise.
    public static func settingFile(in dataFolder: URL) -> URL { dataFolder.appendingPathComponent("autolog") }

    /// The log folder `/autolog on` saved for this data folder, if any.
    public static func saved(in dataFolder: URL) -> URL? {
        guard let text = try? String(contentsOf: settingFile(in: dataFolder), encoding: .utf8) else { return nil }
        let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return path.isEmpty ? nil : URL(fileURLWithPath: path)
    }

    /// Writes what `event` adds to its chat's log, if anything.
    func record(_ event: ChatEvent, me: UserID?) {
        let (data, text): (MessageEvent, String)
        switch event {
        case .message(let message):
            (data, text) = (message, "<\(Format.author(message.message))> " + Self.body(message.message))
        case .messageEdited(let edited):
            (data, text) = (
                edited,
                "* @\(Sanitizer.line(edited.message.sender.handle)) edited message \(edited.message.seq): " + Self.body(edited.message)
            )
        case .messageDeleted(let deleted):
            let by = deleted.by ?? deleted.message.sender
            (data, text) = (deleted, "* @\(Sanitizer.line(by.handle)) deleted message \(deleted.message.seq)")
        default:
            return
        }
        append(
            Self.line(text, at: data.message.editedAt ?? data.message.deletedAt ?? data.message.sentAt),
            to: file(for: data.chat, me: me, at: data.message.sentAt))
    }

    /// `2026-11-29 14:03:05 text`, further lines of the text indented under it.
    static func line(_ text: String, at time: Date) -> String {
        let stamp = stampStyle.format(time)
        return stamp + " "
            + text.split(separator: "\n", omittingEmptySubsequences: false).joined(
                separator: "\n" + String(repeating: " ", count: stamp.count + 1)) + "\n"
    }

    static func body(_ message: Message) -> String {
        var text = Sanitizer.message(message.text)
        if let media = message.media { text = Format.media(media) + (text.isEmpty ? "" : " " + text) }
        if let quote = message.replyTo { text += " (" + Format.quote(quote) + ")" }
        return text
    }

    func file(for chat: Chat, me: UserID?, at time: Date) -> URL {
        let label = Format.label(chat, me: me).replacingOccurrences(of: "/", with: "_")
        return folder.appendingPathComponent("\(label).\(monthStyle.format(time)).log")
    }

    private func append(_ line: String, to file: URL) {
        writing.withLock { _ in
            let descriptor = open(file.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            _ = line.withCString { write(descriptor, $0, strlen($0)) }
        }
    }

    static let stampStyle = Date.VerbatimFormatStyle(
        format:
            "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
        timeZone: .current, calendar: Calendar(identifier: .gregorian))
    private let monthStyle = Date.VerbatimFormatStyle(
        format: "\(year: .defaultDigits)-\(month: .twoDigits)", timeZone: .current, calendar: Calendar(identifier: .gregorian))
}
