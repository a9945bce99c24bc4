public import Foundation
public import ParleyCore
import Synchronization

/// Where the shell's results, errors and events go: human lines (coloured on a
/// terminal) or, with `--json`, one JSON object per line.
public final class Output: Sendable {
    public enum Style: Sendable, Equatable {
        case plain
        case colour
        case json
    }

    public let style: Style
    /// Script output is buffered and written in large blocks; a terminal gets each line at once.
    private let buffer = Mutex([UInt8]())
    private let flushEachWrite: Bool
    /// Receives each line instead of stdout and stderr (commands a bot runs).
    private let capture: (@Sendable (String) -> Void)?
    /// Where an internal error's detail (a database's message, a type's name) is kept:
    /// the person is shown a reference to it, never the detail.
    private let errorLog: PluginLogFile?
    private let errorLogPath: String?
    /// The descriptors written: standard output and error, or a shell's own when it
    /// runs in process (a test's files).
    private let streams: (output: Int32, errors: Int32)
    let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public init(
        style: Style, flushEachWrite: Bool, errorLog: URL? = nil, output: Int32 = STDOUT_FILENO, errors: Int32 = STDERR_FILENO
    ) {
        self.style = style
        self.flushEachWrite = flushEachWrite
        self.capture = nil
        self.errorLog = errorLog.map(PluginLogFile.init(url:))
        self.errorLogPath = errorLog?.path
        self.streams = (output, errors)
    }

    /// Output that hands every line to `capture` and writes nothing.
    public init(style: Style, errorLog: URL? = nil, capture: @escaping @Sendable (String) -> Void) {
        self.style = style
        self.flushEachWrite = false
        self.capture = capture
        self.errorLog = errorLog.map(PluginLogFile.init(url:))
        self.errorLogPath = errorLog?.path
        self.streams = (STDOUT_FILENO, STDERR_FILENO)
    }

    public var isJSON: Bool { style == .json }

    /// A command's result: lines for people, a value for `--json`.
    public func result(_ command: String, _ lines: [String], json: some Encodable) {
        if isJSON {
            write(jsonLine(["type": .string("result"), "command": .string(command)], data: json))
        } else {
            for line in lines { write(line) }
        }
    }

    /// An internal error as a person sees it: a reference to its detail in the log.
    func redacted(_ error: ParleyError) -> ParleyError {
        // A server's own has its reference already, its detail in the server's log.
        guard error.code == .internalError, !error.message.contains("(reference ") else { return error }
        let reference = String(UInt32.random(in: .min ... .max), radix: 16)
        errorLog?.append("internal error \(reference)", error.message)
        let whereKept = errorLogPath.map { "; the detail is in \($0)" } ?? ""
        return ParleyError(.internalError, "parley failed to do this (reference \(reference)\(whereKept))")
    }

    /// A note for people only (prompts, hints); silent in JSON mode.
    public func note(_ line: String) {
        if !isJSON { write(paint(line, .dim)) }
    }

    public func error(_ error: ParleyError, location: String?) {
        let error = redacted(error)
        if isJSON {
            var fields: [String: JSONScalar] = [
                "type": .string("error"), "code": .string(error.code.rawValue), "message": .string(error.message),
            ]
            if let location { fields["location"] = .string(location) }
            write(jsonLine(fields, data: Optional<Int>.none))
        }
        let prefix = location.map { "\($0): " } ?? ""
        // Both parts may come from a server: neither reaches the terminal unsanitized.
        let line = "\(prefix)error: \(Sanitizer.line(error.code.rawValue)): \(Sanitizer.line(error.message))"
        if location != nil || !isJSON { writeError(paint(line, .red)) }
    }

    public func event(_ event: ChatEvent, me: UserID?, myHandle: String? = nil) {
        if let line = render(event, me: me, myHandle: myHandle) { write(line) }
    }

    /// The event as it would be printed, or nil for events not shown to people.
    /// A message that mentions `myHandle` is highlighted on a terminal.
    public func render(_ event: ChatEvent, me: UserID?, myHandle: String? = nil) -> String? {
        if isJSON {
            return jsonLine(["type": .string("event"), "event": .string(event.type)], data: EventData(event: event))
        }
        return Format.event(event, me: me, myHandle: myHandle, colour: style == .colour)
    }

    /// Text already formatted as one printable line (or several, separated by newlines).
    public func write(_ line: String) {
        if let capture { return capture(line) }
        buffer.withLock { buffer in
            buffer.append(contentsOf: line.utf8)
            buffer.append(10)
            if flushEachWrite || buffer.count >= 1 << 16 {
                StandardOutput.write(buffer, to: streams.output)
                buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Writes to stderr, after what stdout holds, so the two streams stay in order.
    public func writeError(_ line: String) {
        if let capture { return capture(line) }
        flush()
        StandardOutput.write(Array((line + "\n").utf8), to: streams.errors)
    }

    public func flush() {
        buffer.withLock { buffer in
            StandardOutput.write(buffer, to: streams.output)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    func paint(_ text: String, _ colour: Format.Colour) -> String {
        style == .colour ? Format.paint(text, colour) : text
    }

    private func jsonLine(_ fields: [String: JSONScalar], data: some Encodable) -> String {
        var object = "{"
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            object += "\(quoted(key)):\(value.json),"
        }
        if let encoded = try? encoder.encode(data), let text = String(data: encoded, encoding: .utf8), text != "null" {
            object += "\"data\":\(text)"
        } else {
            object.removeLast()
        }
        return object + "}"
    }

    private func quoted(_ text: String) -> String {
        (try? String(data: encoder.encode(text), encoding: .utf8) ?? "\"\"") ?? "\"\""
    }

    enum JSONScalar {
        case string(String)
        var json: String {
            switch self {
            case .string(let text):
                (try? String(data: JSONEncoder().encode(text), encoding: .utf8) ?? "\"\"") ?? "\"\""
            }
        }
    }

    /// An event's payload as JSON (the event's own data, without its type wrapper).
    private struct EventData: Encodable {
        let event: ChatEvent
        func encode(to encoder: any Encoder) throws {
            switch event {
            case .message(let data), .messageEdited(let data), .messageDeleted(let data): try data.encode(to: encoder)
            case .reactionChanged(let data): try data.encode(to: encoder)
            case .chatUpdated(let data): try data.encode(to: encoder)
            case .typing(let data): try data.encode(to: encoder)
            case .away(let data): try data.encode(to: encoder)
            case .invited(let data): try data.encode(to: encoder)
            case .renamed(let data): try data.encode(to: encoder)
            case .tagged(let data): try data.encode(to: encoder)
            case .reminder(let data): try data.encode(to: encoder)
            case .wallops(let data): try data.encode(to: encoder)
            case .notifyChanged(let data): try data.encode(to: encoder)
            case .threadUpdated(let data): try data.encode(to: encoder)
            case .chatCreated(let data): try data.encode(to: encoder)
            case .memberJoined(let data), .memberLeft(let data), .memberKicked(let data), .roleChanged(let data):
                try data.encode(to: encoder)
            case .readMarkerMoved(let data): try data.encode(to: encoder)
            case .presenceChanged(let data): try data.encode(to: encoder)
            case .chatDeleted(let data): try data.encode(to: encoder)
            }
        }
    }
}
