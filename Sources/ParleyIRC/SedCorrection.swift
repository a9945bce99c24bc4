import Foundation

/// `s/old/new/` (or `s/old/new`, or with `g` after it for every place): the correction
/// IRC users have always typed after a line with a slip in it. Sent by a client that
/// has no way to edit, it edits the sender's last message in that chat, when that
/// message has `old` in it (docs/irc.md).
struct SedCorrection: Equatable {
    var old: String
    var new: String
    var everywhere: Bool

    init(old: String, new: String, everywhere: Bool) {
        (self.old, self.new, self.everywhere) = (old, new, everywhere)
    }

    /// Reads a line as a correction; nil for any other line. `\/` stands for a slash.
    init?(_ line: String) {
        guard line.hasPrefix("s/"), !line.contains("\n") else { return nil }
        var parts: [String] = [""]
        var escaped = false
        for character in line.dropFirst(2) {
            if escaped {
                if character != "/" { parts[parts.count - 1].append("\\") }
                parts[parts.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "/" {
                parts.append("")
            } else {
                parts[parts.count - 1].append(character)
            }
        }
        if escaped { parts[parts.count - 1].append("\\") }
        // s/old/new, s/old/new/ or s/old/new/g: nothing else after the last slash.
        guard parts.count == 2 || (parts.count == 3 && (parts[2].isEmpty || parts[2] == "g")), !parts[0].isEmpty else {
            return nil
        }
        old = parts[0]
        new = parts[1]
        everywhere = parts.count == 3 && parts[2] == "g"
    }

    /// `text` corrected, or nil when `old` is not in it (or the result is empty).
    func applied(to text: String) -> String? {
        guard let first = text.range(of: old) else { return nil }
        let corrected = everywhere ? text.replacingOccurrences(of: old, with: new) : text.replacingCharacters(in: first, with: new)
        return corrected.trimmingCharacters(in: .whitespaces).isEmpty ? nil : corrected
    }
}
