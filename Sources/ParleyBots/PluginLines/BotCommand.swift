public import ParleyCore

/// A slash command a plugin adds to the shell: `/roll 2d6` reaches it as a `command` event.
public struct BotCommand: Hashable, Sendable, Codable {
    public var name: String
    public var usage: String
    public var help: String

    public init(name: String, usage: String? = nil, help: String? = nil) {
        self.name = name
        self.usage = usage ?? "/\(name)"
        self.help = help ?? "a command of a bot plugin"
    }
}

/// A plugin invoking one of its declared commands from the shell.
public struct BotCommandCall: Hashable, Sendable, Codable {
    public var name: String
    public var arguments: String
    /// The shell's current chat, if any.
    public var chat: Chat?
    public var user: UserRef
}
