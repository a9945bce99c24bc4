import ParleyCore

/// Finds `@handle` mentions in a message's text.
enum Mentions {
    /// The words that mention every member of a group.
    static let everyone = ["all", "here"]

    /// The handles mentioned, lowercased, each once and in order, and whether `@all` or
    /// `@here` is among them. A mention starts at `@` after a space, punctuation or the
    /// start of the text (so `ann@example.com` is none) and runs over the characters a
    /// handle may hold (letters, digits, `-`, `_` and `.`).
    static func parse(_ text: String) -> (handles: [String], everyone: Bool) {
        guard text.utf8.contains(UInt8(ascii: "@")) else { return ([], false) }
        var handles: [String] = []
        var everyone = false
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            defer { index += 1 }
            guard scalars[index] == "@", index == 0 || !isHandleScalar(scalars[index - 1]) && scalars[index - 1] != "@" else { continue }
            var end = index + 1
            while end < scalars.count, isHandleScalar(scalars[end]) { end += 1 }
            // A full stop after a handle ends the sentence: `@alice.smith.` is `@alice.smith`.
            while end > index + 1, scalars[end - 1] == "." { end -= 1 }
            let handle = String(String.UnicodeScalarView(scalars[(index + 1)..<end])).lowercased()
            index = end - 1
            guard Limits.userHandleLength.contains(handle.count) || everyoneWords.contains(handle) else { continue }
            if everyoneWords.contains(handle) {
                everyone = true
            } else if !handles.contains(handle) {
                handles.append(handle)
            }
        }
        return (handles, everyone)
    }

    private static let everyoneWords = Set(everyone)

    /// A user handle's characters, in either case (people write `@Bob`).
    private static func isHandleScalar(_ scalar: Unicode.Scalar) -> Bool {
        Limits.isUserHandleScalar(scalar) || ("A"..."Z").contains(scalar)
    }
}
