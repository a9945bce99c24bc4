public import ParleyCore

/// A slash command a plugin adds to the shell: `/roll 2d6` reaches it as a `command` event.
public struct BotCommand: Hashable, Sendable, Codable {
    public var name: String
    public var usage: String
    public var help: String
    /// Who may run it as `!NAME` in a chat (`ChatCommand.allow`): the host refuses the
    /// others before the plugin sees their line.
    public var allow: [String]

    public init(name: String, usage: String? = nil, help: String? = nil, allow: [String] = ["members"]) {
        self.name = name
        self.usage = usage ?? "/\(name)"
        self.help = help ?? "a command of a bot plugin"
        self.allow = allow.isEmpty ? ["members"] : allow
    }

    /// As the chats list it: `!roll NdM` for a usage written `/roll NdM`.
    public var chatCommand: ChatCommand {
        let shown = usage.hasPrefix("/") ? "!" + usage.dropFirst() : usage
        return ChatCommand(name: name, usage: shown, help: help, allow: allow)
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
