/// One IRC line, as RFC 1459 and the IRCv3 message-tags specification shape it:
/// `@tag=value;flag :source COMMAND param param :trailing param`.
///
/// ```swift
/// let line = try IRCMessage(parsing: "@label=7 PRIVMSG #swift :hello there")
/// line.command    // "PRIVMSG"
/// line.params     // ["#swift", "hello there"]
/// ```
public struct IRCMessage: Sendable, Hashable {
    public var tags: [String: String]
    public var source: String?
    /// Upper-cased: commands are case-insensitive.
    public var command: String
    public var params: [String]

    /// The longest line without its tags, CR LF included (RFC 1459).
    public static let maxBodyBytes = 512
    /// The longest tag section a client may send, `@` and the space after it included
    /// (IRCv3 message-tags).
    public static let maxClientTagBytes = 4096
    /// At most this many parameters (RFC 1459's 15).
    public static let maxParams = 15

    public init(tags: [String: String] = [:], source: String? = nil, command: String, params: [String] = []) {
        self.tags = tags
        self.source = source
        self.command = command
        self.params = params
    }

    /// Reads one line without its CR LF. Throws for a line that is too long or has no
    /// command; an empty line is `nil` (clients may send them, and they mean nothing).
    /// The line is split on Unicode scalars, as IRC splits bytes: a space followed by a
    /// combining mark is still a space here (as characters, the two are one).
    public init?(parsing line: Substring) throws(IRCLineError) {
        var rest = line.unicodeScalars.drop { $0 == " " }
        var tags: [String: String] = [:]
        if rest.first == "@" {
            guard let space = rest.firstIndex(of: " ") else { throw IRCLineError.noCommand }
            let section = rest[rest.index(after: rest.startIndex)..<space]
            guard Self.bytes(section) + 2 <= Self.maxClientTagBytes else { throw IRCLineError.tagsTooLong }
            for tag in section.split(separator: ";", omittingEmptySubsequences: true) {
                if let equals = tag.firstIndex(of: "=") {
                    tags[Self.text(tag[..<equals])] = Self.unescape(Substring(tag[tag.index(after: equals)...]))
                } else {
                    tags[Self.text(tag)] = ""
                }
            }
            rest = rest[space...].drop { $0 == " " }
        }
        guard Self.bytes(rest) + 2 <= Self.maxBodyBytes else { throw IRCLineError.lineTooLong }
        var source: String?
        if rest.first == ":" {
            guard let space = rest.firstIndex(of: " ") else { throw IRCLineError.noCommand }
            source = Self.text(rest[rest.index(after: rest.startIndex)..<space])
            rest = rest[space...].drop { $0 == " " }
        }
        if rest.isEmpty {
            if tags.isEmpty && source == nil { return nil }
            throw IRCLineError.noCommand
        }
        let commandEnd = rest.firstIndex(of: " ") ?? rest.endIndex
        let command = rest[..<commandEnd]
        // Printable ASCII: a command no server knows (`NONEXISTENT_COMMAND`) is still a
        // command, answered 421 under its name (and its label). It cannot start with
        // `@` or `:`, which would read back as tags or a source.
        guard let first = command.first, first != "@", first != ":", command.allSatisfy({ (0x21..<0x7F).contains($0.value) }) else {
            throw IRCLineError.badCommand
        }
        rest = rest[commandEnd...].drop { $0 == " " }
        var params: [String] = []
        while !rest.isEmpty {
            if rest.first == ":" || params.count == Self.maxParams - 1 {
                params.append(Self.text(rest.first == ":" ? rest.dropFirst() : rest))
                break
            }
            let end = rest.firstIndex(of: " ") ?? rest.endIndex
            params.append(Self.text(rest[..<end]))
            rest = rest[end...].drop { $0 == " " }
        }
        self.init(tags: tags, source: source, command: Self.text(command).uppercased(), params: params)
    }

    private static func text(_ scalars: Substring.UnicodeScalarView) -> String {
        String(Substring(scalars))
    }

    private static func bytes(_ scalars: Substring.UnicodeScalarView) -> Int {
        scalars.reduce(0) { $0 + UTF8.width($1) }
    }

    public init?(parsing line: String) throws(IRCLineError) {
        try self.init(parsing: Substring(line))
    }

    /// The line to send, without CR LF: tags sorted by key, so a line reads the same
    /// every time; the last parameter written as trailing when it must be.
    public var serialized: String {
        var line = ""
        if !tags.isEmpty {
            line += "@"
            line += tags.keys.sorted().map { key in
                let value = tags[key] ?? ""
                return value.isEmpty ? key : "\(key)=\(Self.escape(value))"
            }.joined(separator: ";")
            line += " "
        }
        if let source { line += ":\(source) " }
        line += command
        for (index, param) in params.enumerated() {
            let last = index == params.count - 1
            let scalars = param.unicodeScalars
            if last && (scalars.isEmpty || scalars.first == ":" || scalars.contains(" ")) {
                line += " :\(param)"
            } else {
                line += " \(param)"
            }
        }
        return line
    }

    /// IRCv3's escaping of tag values: `\:` `\s` `\\` `\r` `\n`.
    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case ";": escaped += "\\:"
            case " ": escaped += "\\s"
            case "\\": escaped += "\\\\"
            case "\r": escaped += "\\r"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func unescape(_ value: Substring) -> String {
        var result = ""
        var escaping = false
        for character in value {
            if escaping {
                switch character {
                case ":": result += ";"
                case "s": result += " "
                case "r": result += "\r"
                case "n": result += "\n"
                default: result.append(character)
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

/// Why a line from a client could not be read.
public enum IRCLineError: Error, Sendable, Hashable {
    case lineTooLong
    case tagsTooLong
    case noCommand
    case badCommand
}
