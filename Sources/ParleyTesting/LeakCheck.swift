public import Testing

/// What no answer may show a user: a database's own words, SQL, a Swift type's name.
/// Every error the harnesses see passes through `expectNoLeak` (`expectError`, the
/// shell runner, the IRC client, the raw HTTP client), so the whole suite greps them.
public enum LeakCheck {
    static let marks = [
        "SQLite error", "constraint failed", "while executing", "PSQLError", "PostgresError", "DatabaseError", "UPDATE user SET",
        "INSERT INTO", "ParleyError(", "Swift.Error", "DecodingError", "NIOCore.", "GRDB.",
    ]

    /// The first mark `text` carries, if any.
    public static func leak(in text: String) -> String? {
        marks.first { text.contains($0) }
    }
}

/// Records an issue when `text` (an error's message, a server's answer) carries one of
/// `LeakCheck`'s marks.
public func expectNoLeak(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    if let mark = LeakCheck.leak(in: text) {
        Issue.record("an answer shows internals (\(mark)): \(text.prefix(400))", sourceLocation: sourceLocation)
    }
}
