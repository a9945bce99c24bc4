/// Makes text from other users safe to print: no escape sequence, C0/C1 control
/// character or bidirectional override reaches the terminal. Each is replaced by a
/// visible stand-in (`^[`, `<U+202E>`), so the reader sees that something was there.
public enum Sanitizer {
    /// Cleans one line of text; newlines and tabs become visible too.
    public static func line(_ text: String) -> String {
        clean(text, keepNewlines: false)
    }

    /// Cleans message text, keeping newlines (the caller indents continuation lines)
    /// and turning tabs into spaces.
    public static func message(_ text: String) -> String {
        clean(text, keepNewlines: true)
    }

    private static func clean(_ text: String, keepNewlines: Bool) -> String {
        // Most text has nothing to replace: printable ASCII is returned as it is.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        var output = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x0A where keepNewlines:
                output.append(scalar)
            case 0x09:
                output.append(contentsOf: "    ".unicodeScalars)
            case 0x00...0x1F:
                // Caret notation: ESC is ^[, BEL is ^G.
                output.append(contentsOf: "^\(Character(Unicode.Scalar(UInt8(scalar.value + 0x40))))".unicodeScalars)
            case 0x7F:
                output.append(contentsOf: "^?".unicodeScalars)
            case 0x80...0x9F, 0x200E, 0x200F, 0x061C, 0x202A...0x202E, 0x2066...0x2069:
                output.append(contentsOf: codePoint(scalar).unicodeScalars)
            default:
                output.append(scalar)
            }
        }
        return String(output)
    }

    private static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "<U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)>"
    }
}
