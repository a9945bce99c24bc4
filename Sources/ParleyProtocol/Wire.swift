import Foundation

/// How Parley's wire format turns values into JSON and back: snake_case keys
/// (`chat_id`, `sent_at`), ISO 8601 dates with milliseconds.
public enum Wire {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(withFraction))
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
