import ParleyCore

/// A here-document in a script: a line ending in `<<WORD` takes the lines after it,
/// up to one that is `WORD` alone, as its text.
enum HereDocument {
    /// `/send #g <<EOF` → (`/send #g`, `EOF`); nil when the line starts none.
    static func start(of line: String) -> (String, String)? {
        let bytes = line.utf8
        guard let last = bytes.indices.last(where: { $0 > bytes.startIndex && bytes[$0] == 0x3C && bytes[bytes.index(before: $0)] == 0x3C })
        else { return nil }
        let terminator = line[bytes.index(after: last)...].trimmingSpaces()
        guard !terminator.isEmpty, terminator.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return (line[..<bytes.index(before: last)].trimmingSpaces(), terminator)
    }
}
