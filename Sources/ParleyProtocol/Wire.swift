public import Foundation

/// How Parley's wire format turns values into JSON and back: snake_case keys
/// (`chat_id`, `sent_at`), ISO 8601 dates with milliseconds.
public enum Wire {
    /// The largest frame a server sends and a client takes: a reply past it is refused
    /// by the server as `reply_too_large` before it is sent, so no client ever drops a
    /// connection over one. A page of 500 messages of the longest text fits.
    public static let maxServerFrameBytes = 16 << 20

    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(text(of: date))
        }
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .custom { path in WireKey(snakeCase: path.last!.stringValue) }
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = try? Date(text, strategy: withFraction) { return date }
            if let date = try? Date(text, strategy: .iso8601) { return date }
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
        }
        return decoder
    }

    /// A date as the wire writes it, in UTC to the nearest millisecond:
    /// `2026-11-23T14:03:07.125Z`.
    public static func text(of date: Date) -> String {
        var bytes: [UInt8] = []
        appendText(of: date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text(of:)` written straight into `bytes`, for the wire writer. Calendar fields
    /// come from `gmtime_r`; Foundation's ISO 8601 style took ~0.5 µs a date.
    static func appendText(of date: Date, to bytes: inout [UInt8]) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard abs(milliseconds) < 253_402_300_800_000 else {
            // Past year 9999 (or before 1970 by as much): the calendar's own style.
            bytes.append(contentsOf: date.formatted(withFraction).utf8)
            return
        }
        let whole = Int64(milliseconds)
        var seconds = time_t(whole >= 0 ? whole / 1000 : (whole - 999) / 1000)
        let fraction = whole - Int64(seconds) * 1000
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil, fields.tm_year + 1900 >= 0 else {
            bytes.append(contentsOf: date.formatted(withFraction).utf8)
            return
        }
        func two(_ value: Int32) {
            bytes.append(UInt8(48 + value / 10))
            bytes.append(UInt8(48 + value % 10))
        }
        let year = fields.tm_year + 1900
        two(year / 100)
        two(year % 100)
        bytes.append(UInt8(ascii: "-"))
        two(fields.tm_mon + 1)
        bytes.append(UInt8(ascii: "-"))
        two(fields.tm_mday)
        bytes.append(UInt8(ascii: "T"))
        two(fields.tm_hour)
        bytes.append(UInt8(ascii: ":"))
        two(fields.tm_min)
        bytes.append(UInt8(ascii: ":"))
        two(fields.tm_sec)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(48 + fraction / 100))
        two(Int32(fraction % 100))
        bytes.append(UInt8(ascii: "Z"))
    }

    /// The decimal digits of `value`.
    static func appendDigits(of value: UInt64, to bytes: inout [UInt8]) {
        var count = 1
        var probe = value
        while probe >= 10 {
            probe /= 10
            count += 1
        }
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var rest = value
        var index = bytes.count - 1
        repeat {
            bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
            index -= 1
        } while rest > 0
    }

    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}

/// Maps a wire key back to the Swift property name: `chat_id` → `chatID`,
/// `is_public` → `isPublic` (the inverse of `.convertToSnakeCase` for our names, where
/// an `ID` suffix is upper case).
struct WireKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(snakeCase: String) {
        let parts = snakeCase.split(separator: "_", omittingEmptySubsequences: true)
        guard parts.count > 1 else {
            stringValue = snakeCase
            return
        }
        var name = String(parts[0])
        for part in parts.dropFirst() {
            name += part == "id" ? "ID" : part.prefix(1).uppercased() + part.dropFirst()
        }
        stringValue = name
    }

    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
