import Foundation
public import ParleyCore

/// What follows a command's name, read the way the command needs it: word by word,
/// with `--options`, or the rest as verbatim text.
public struct CommandInput: Sendable {
    private var remaining: Substring
    private let tokenizer: Tokenizer
    /// Text from a here-document (`<<EOF` … `EOF`), when the script gave one.
    public var hereDocument: String?

    public init(_ text: String, tokenizer: Tokenizer, hereDocument: String? = nil) {
        remaining = Substring(text)
        self.tokenizer = tokenizer
        self.hereDocument = hereDocument
    }

    public var isEmpty: Bool { remaining.allSatisfy { $0 == " " || $0 == "\t" } && hereDocument == nil }

    /// Reads the next word.
    public mutating func word() throws(ParleyError) -> String? {
        guard let (word, rest) = try tokenizer.next(remaining) else { return nil }
        remaining = rest
        return word
    }

    /// The next word, without consuming it.
    public func peek() throws(ParleyError) -> String? {
        try tokenizer.next(remaining)?.word
    }

    /// Reads the next word if it names a chat (`#group` or `@user`).
    public mutating func target() throws(ParleyError) -> String? {
        guard let next = try peek(), next.hasPrefix("#") || next.hasPrefix("@") else { return nil }
        return try word()
    }

    public mutating func required(_ name: String) throws(ParleyError) -> String {
        guard let word = try word() else { throw ParleyError(.usage, "missing \(name)") }
        return word
    }

    /// The rest of the line as message text (or the here-document), trimmed.
    public mutating func text() throws(ParleyError) -> String {
        if let hereDocument {
            self.hereDocument = nil
            remaining = ""
            return hereDocument
        }
        let text = try tokenizer.expandText(remaining).trimmingSpaces()
        remaining = ""
        return text
    }

    /// Reads every remaining word, separating `--name value` options and `--flag`s from
    /// positional words. An option the command does not know is a usage error.
    public mutating func options(values: Set<String> = [], flags: Set<String> = []) throws(ParleyError) -> Options {
        var options = Options()
        var onlyPositional = false
        while let word = try word() {
            if onlyPositional || !word.hasPrefix("--") || word == "--" {
                if word == "--" && !onlyPositional { onlyPositional = true } else { options.positional.append(word) }
                continue
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if values.contains(name) {
                var value = inlineValue
                if value == nil { value = try self.word() }
                guard let value else { throw ParleyError(.usage, "--\(name) needs a value") }
                options.values[name] = value
            } else if flags.contains(name), inlineValue == nil {
                options.flags.insert(name)
            } else {
                throw ParleyError(.usage, "unknown option --\(name)")
            }
        }
        return options
    }

    public struct Options: Sendable {
        public var positional: [String] = []
        public var values: [String: String] = [:]
        public var flags: Set<String> = []

        public func integer(_ name: String) throws(ParleyError) -> Int? {
            guard let text = values[name] else { return nil }
            guard let value = Int(text) else { throw ParleyError(.usage, "--\(name) takes a number, not '\(text)'") }
            return value
        }
    }
}
