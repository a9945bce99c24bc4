import Foundation
public import ParleyCore

/// Reads words from a command line: spaces separate, "double" and 'single' quotes
/// group, a backslash escapes the next character. In scripts `$NAME` and `${NAME}` are
/// replaced from the environment (not inside single quotes; `\$` is a literal dollar).
///
/// Words are read one at a time, so a command can take the rest of the line verbatim
/// as message text (where an apostrophe is not a quote).
public struct Tokenizer: Sendable {
    /// The variables to expand; nil leaves `$` alone (the interactive shell).
    public var environment: [String: String]?

    public init(environment: [String: String]? = nil) {
        self.environment = environment
    }

    /// The next word of `line` and what follows it, or nil when only spaces are left.
    public func next(_ line: Substring) throws(ParleyError) -> (word: String, rest: Substring)? {
        var index = line.startIndex
        while index < line.endIndex, line[index] == " " || line[index] == "\t" { index = line.index(after: index) }
        guard index < line.endIndex else { return nil }
        var word = ""
        var quote: Character?
        while index < line.endIndex {
            let character = line[index]
            let next = line.index(after: index)
            if quote == nil, character == " " || character == "\t" { break }
            switch character {
            case "'" where quote == nil, "\"" where quote == nil:
                quote = character
            case quote:
                quote = nil
            case "\\" where quote != "'" && next < line.endIndex:
                word.append(line[next])
                index = line.index(after: next)
                continue
            case "$" where quote != "'":
                index = try expand(line, from: index, into: &word)
                continue
            default:
                word.append(character)
            }
            index = next
        }
        if quote != nil { throw ParleyError(.usage, "a quote is not closed") }
        return (word, line[index...])
    }

    /// All words of `line`.
    public func words(_ line: String) throws(ParleyError) -> [String] {
        var words: [String] = []
        var rest = Substring(line)
        while let (word, after) = try next(rest) {
            words.append(word)
            rest = after
        }
        return words
    }

    /// Expands the variables of raw text (message text), leaving quotes as they are.
    public func expandText(_ text: Substring) throws(ParleyError) -> String {
        guard environment != nil, text.utf8.contains(UInt8(ascii: "$")) else { return String(text) }
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            let next = text.index(after: index)
            if character == "\\", next < text.endIndex, text[next] == "$" {
                output.append("$")
                index = text.index(after: next)
            } else if character == "$" {
                index = try expand(text, from: index, into: &output)
            } else {
                output.append(character)
                index = next
            }
        }
        return output
    }

    /// Expands `$NAME` / `${NAME}` at `start`; returns where scanning resumes. A `$` not
    /// followed by a name (`$5`, `$ `) stays as it is.
    private func expand(_ line: Substring, from start: String.Index, into output: inout String) throws(ParleyError) -> String.Index {
        let afterDollar = line.index(after: start)
        guard let environment else {
            output.append("$")
            return afterDollar
        }
        var nameStart = afterDollar
        let braced = nameStart < line.endIndex && line[nameStart] == "{"
        if braced { nameStart = line.index(after: nameStart) }
        var nameEnd = nameStart
        while nameEnd < line.endIndex, Self.isNameCharacter(line[nameEnd], first: nameEnd == nameStart) {
            nameEnd = line.index(after: nameEnd)
        }
        let name = String(line[nameStart..<nameEnd])
        if name.isEmpty {
            output.append("$")
            return afterDollar
        }
        if braced {
            guard nameEnd < line.endIndex, line[nameEnd] == "}" else { throw ParleyError(.usage, "'${' without a closing '}'") }
            nameEnd = line.index(after: nameEnd)
        }
        guard let value = environment[name] else {
            throw ParleyError(.unknownVariable, "the environment variable \(name) is not set")
        }
        output.append(value)
        return nameEnd
    }

    private static func isNameCharacter(_ character: Character, first: Bool) -> Bool {
        guard character.isASCII else { return false }
        return character == "_" || character.isLetter || (!first && character.isNumber)
    }
}
