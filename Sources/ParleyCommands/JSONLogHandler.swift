import Foundation
import Logging

/// Writes each log record to standard error as one JSON object on one line, so logs
/// can be shipped as they are: `time`, `level`, `label`, `source`, `message`, then the
/// record's metadata (`op`, `user`, `address`, `code`, `reference`, …) as strings.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let own = event.metadata { fields.merge(own) { _, new in new } }
        if let error = event.error { fields["error"] = "\(error)" }
        var line = "{"
        func add(_ key: String, _ value: String) {
            if line.count > 1 { line += "," }
            line += Self.quoted(key) + ":" + Self.quoted(value)
        }
        add("time", Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        add("level", event.level.rawValue)
        add("label", label)
        add("source", event.source)
        add("message", event.message.description)
        for key in fields.keys.sorted() where !["time", "level", "label", "source", "message"].contains(key) {
            add(key, Self.flat(fields[key]!))
        }
        line += "}\n"
        // One write per record, so records from several threads never interleave.
        _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }

    private static func flat(_ value: Logger.Metadata.Value) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array, .dictionary: value.description
        }
    }

    /// A JSON string literal.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
