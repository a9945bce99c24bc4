/// What a message came through besides its sender's own hand, set by the engine from the
/// door the message came in by; a message without one was sent by its sender (a person,
/// or a bot account: `UserRef.isBot`). No client names a hook or a notice: the one thing
/// a client may ask for is a plugin's name (`Provenance.pluginName(_:)`).
///
/// Every renderer switches over it with no `default`, so a new kind fails to compile
/// until each says how it reads.
public enum Provenance: Hashable, Sendable {
    /// A plugin its sender runs (`<alice via dice>`).
    case plugin(String)
    /// A group's hook, posting as the member who made it (the message's sender), with
    /// the name a post gave itself (Slack's `username`), if any.
    case hook(name: String, username: String?)
    /// An IRC `NOTICE`.
    case notice

    /// The stored kind: `plugin`, `hook` or `notice`.
    public var kind: String {
        switch self {
        case .plugin: "plugin"
        case .hook: "hook"
        case .notice: "notice"
        }
    }

    /// The plugin's or hook's name (nil for a notice).
    public var name: String? {
        switch self {
        case .plugin(let name): name
        case .hook(let name, _): name
        case .notice: nil
        }
    }

    /// The name a hook's post gave itself.
    public var username: String? {
        switch self {
        case .plugin, .notice: nil
        case .hook(_, let username): username
        }
    }

    /// A stored row's provenance from its three columns; nil for a kind this build does
    /// not know (read as the sender's own message, never as a hook's).
    public init?(kind: String?, name: String?, username: String?) {
        switch kind {
        case "plugin": self = .plugin(name ?? "")
        case "hook": self = .hook(name: name ?? "", username: username)
        case "notice": self = .notice
        default: return nil
        }
    }

    public static let maxNameLength = 64

    /// The name of a plugin a client sends through: 1–64 letters, digits, `.`, `_`, `-`
    /// or `+`, as a plugin's file is named. Anything else (`hook:CI`, a label, spaces,
    /// other scripts' letters) is `invalid_via`: a client names its plugin, nothing else.
    public static func pluginName(_ name: String?) throws(ParleyError) -> String? {
        guard let name else { return nil }
        guard isPluginName(name) else {
            throw ParleyError(
                .invalidVia, "via names the plugin a message is sent through: 1–\(maxNameLength) letters, digits, . _ - or +")
        }
        return name
    }

    public static func isPluginName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maxNameLength
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "._-+".unicodeScalars.contains($0)
            }
    }

    /// A name that makes a plugin's label (`via NAME`): the file's own name with every
    /// other character a `-`, cut to the length.
    public static func pluginLabel(fromFileName name: String) -> String {
        var label = String(
            String.UnicodeScalarView(
                name.unicodeScalars.map {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                        || "._-+".unicodeScalars.contains($0) ? $0 : "-"
                }))
        if label.utf8.count > maxNameLength { label = String(label.prefix(maxNameLength)) }
        return label.isEmpty ? "plugin" : label
    }

    /// How a hook's message reads in place of its sender: `CI (hook)`, or
    /// `Release Bot (CI hook)` when the post named itself. Nil for other kinds.
    public var hookLabel: String? {
        switch self {
        case .plugin, .notice: nil
        case .hook(let name, let username): Self.hookLabel(name: name, username: username)
        }
    }

    public static func hookLabel(name: String, username: String?) -> String {
        if let username, !username.isEmpty { "\(username) (\(name) hook)" } else { "\(name) (hook)" }
    }

    /// A hook post's `username`, as it is kept: control characters dropped, cut to 64 bytes.
    public static func hookUsername(_ username: String?) -> String? {
        guard let username else { return nil }
        var kept = ""
        for scalar in username.unicodeScalars where !Limits.isControl(scalar) {
            guard kept.utf8.count + UTF8.width(scalar) <= maxNameLength else { break }
            kept.unicodeScalars.append(scalar)
        }
        let trimmed = kept.trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }
}

extension Provenance: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind, name, username
    }

    /// An object; a plain string is an older server's plugin name (or its IRC notice
    /// mark), never read as a hook.
    public init(from decoder: any Decoder) throws {
        if let legacy = try? decoder.singleValueContainer().decode(String.self) {
            self = legacy == "irc notice" ? .notice : .plugin(legacy)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let kind = try container.decode(String.self, forKey: .kind)
        guard
            let provenance = Provenance(
                kind: kind, name: try container.decodeIfPresent(String.self, forKey: .name),
                username: try container.decodeIfPresent(String.self, forKey: .username))
        else {
            throw DecodingError.dataCorruptedError(forKey: .kind, in: container, debugDescription: "an unknown kind of via")
        }
        self = provenance
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(username, forKey: .username)
    }
}
