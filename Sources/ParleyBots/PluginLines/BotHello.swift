import ParleyCore

/// The version of the JSON-lines protocol, sent in `ready`.
public let botProtocolVersion = 1

/// What a plugin says about itself in its first line (all fields optional):
/// `{"type":"hello","name":"dice","events":["message"],"bot_messages":false,"commands":[…]}`.
public struct BotHello: Hashable, Sendable {
    public var name: String?
    /// The events it wants; nil means the defaults (`message`, `member_joined`, `member_left`).
    public var events: Set<String>?
    /// Whether it wants messages sent by bots and by other plugins.
    public var botMessages: Bool
    public var commands: [BotCommand]
    /// Whether the host waits for its answer before handing it a message from another
    /// chat (`BotLimits.replyWait`). A plugin that always names the chat, or never
    /// replies, turns it off and gets its events without waiting.
    public var replyWait: Bool
    /// Schedules it keeps as long as it runs (`schedule` actions' fields, with `at`,
    /// `every` or `cron`): made on the first start, kept as they are on the next.
    public var schedules: [[String: JSONValue]] = []
    /// What the host could not take from the hello (unknown events, bad commands); the
    /// rest of it applies, and the plugin is told these in a `bad_hello` error.
    public var problems: [String] = []

    public static let defaultEvents: Set<String> = ["message", "member_joined", "member_left"]
    /// The server's names for the same events (docs/protocol.md), so there is one vocabulary.
    public static let knownEvents: Set<String> = [
        "message", "member_joined", "member_left", "presence_changed", "message_edited", "message_deleted", "reaction_changed",
    ]
    /// Earlier names, still understood in a hello.
    static let formerNames = ["presence": "presence_changed"]

    public init(
        name: String? = nil, events: Set<String>? = nil, botMessages: Bool = false, commands: [BotCommand] = [], replyWait: Bool = true
    ) {
        self.name = name
        self.events = events
        self.botMessages = botMessages
        self.commands = commands
        self.replyWait = replyWait
    }

    public var wantedEvents: Set<String> { events ?? Self.defaultEvents }
}
