/// Text patterns both stores build the same way.
package enum StoredText {
    /// A LIKE pattern matching strings that start with `prefix` literally, escaping with a backslash.
    package static func likePrefix(_ prefix: String) -> String {
        var escaped = ""
        for character in prefix {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped + "%"
    }
}
