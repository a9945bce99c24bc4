public import Foundation

/// An incoming webhook of a group: a secret URL that posts what is sent to it as a
/// message there, shown as the hook's (`<CI (hook)>`). The secret is shown once, when
/// the hook is made, and kept only as a hash.
public struct Hook: Hashable, Codable, Sendable {
    public var id: Int64
    public var chatID: ChatID
    /// What its messages are shown as: 1–32 letters, digits, spaces, `.`, `_` or `-`.
    public var name: String
    /// The owner or admin who made it; its messages are sent as theirs.
    public var createdBy: UserRef
    public var createdAt: Date
    /// Deliveries must carry `X-Hub-Signature-256` made with the hook's signing secret.
    public var signed: Bool
    public var lastUsedAt: Date?
    /// An outgoing hook: where messages that trigger it are posted (nil: incoming).
    public var url: String?
    /// What triggers an outgoing hook: a command (`!deploy`, the message's first word)
    /// or `mention` (a message that says `@NAME`).
    public var trigger: String?
    /// An outgoing hook's last failed call, for the group's admins to see.
    public var lastError: String?
    public var lastErrorAt: Date?

    public init(
        id: Int64, chatID: ChatID, name: String, createdBy: UserRef, createdAt: Date, signed: Bool, lastUsedAt: Date? = nil,
        url: String? = nil, trigger: String? = nil, lastError: String? = nil, lastErrorAt: Date? = nil
    ) {
        self.id = id
        self.chatID = chatID
        self.name = name
        self.createdBy = createdBy
        self.createdAt = createdAt
        self.signed = signed
        self.lastUsedAt = lastUsedAt
        self.url = url
        self.trigger = trigger
        self.lastError = lastError
        self.lastErrorAt = lastErrorAt
    }

    /// Whether `text` triggers an outgoing hook with this trigger and name.
    public static func triggers(_ trigger: String, name: String, text: String) -> Bool {
        if trigger == "mention" {
            let mention = "@" + name.lowercased()
            return text.lowercased().split(whereSeparator: { $0.isWhitespace }).contains {
                $0 == mention || ($0.hasPrefix(mention) && $0.dropFirst(mention.count).allSatisfy { $0.isPunctuation })
            }
        }
        return text.split(whereSeparator: { $0.isWhitespace }).first.map { $0.lowercased() == trigger.lowercased() } ?? false
    }

    /// A trigger as given: `!word` (1–32 letters, digits, `_` or `-`) or `mention`.
    public static func checkedTrigger(_ trigger: String) throws(ParleyError) -> String {
        let word = trigger.trimmingSpaces().lowercased()
        if word == "mention" { return word }
        let body = word.dropFirst()
        guard word.hasPrefix("!"), (1...32).contains(body.count),
            body.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" })
        else { throw ParleyError(.invalidArgument, "a trigger is a command such as !deploy, or mention") }
        return word
    }

    /// Where hooks are posted: `POST /v1/hooks/TOKEN`.
    public static let pathPrefix = "/v1/hooks/"

    public static let maxNameLength = 32
    public static let maxSigningSecretLength = 256

    /// A hook's name as given, trimmed, or `invalid_argument`.
    public static func checkedName(_ name: String) throws(ParleyError) -> String {
        let trimmed = name.trimmingSpaces()
        let allowed = trimmed.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || " ._-".unicodeScalars.contains($0)
        }
        guard !trimmed.isEmpty, trimmed.count <= maxNameLength, allowed else {
            throw ParleyError(.invalidArgument, "a hook's name is 1–\(maxNameLength) letters, digits, spaces, . _ or -")
        }
        return trimmed
    }
}

/// A hook just made, with the secret token of its URL (shown this once); an outgoing
/// hook's with the secret its calls are signed with instead.
public struct CreatedHook: Hashable, Codable, Sendable {
    public var hook: Hook
    public var token: String
    /// An outgoing hook's signing secret (`X-Parley-Signature-256`), shown this once.
    public var signingSecret: String?
    /// The path to post to: `/v1/hooks/TOKEN`.
    public var path: String { Hook.pathPrefix + token }

    public init(hook: Hook, token: String, signingSecret: String? = nil) {
        self.hook = hook
        self.token = token
        self.signingSecret = signingSecret
    }
}
