import Foundation

/// A command a bot answers in the chats it is in (`!NAME ARGS`), as its plugin declared
/// it, with who may run it: `/help` in a chat lists those of the bots there, and an IRC
/// client's `/msg BOT help` those of one bot.
public struct ChatCommand: Hashable, Codable, Sendable {
    public var name: String
    public var usage: String
    public var help: String
    /// Who may run it: `members` (anyone in the chat, the default), `admins` (the chat's
    /// admins and owner), `owner` (the chat's owner), `bot_owner` (the bot's owner), and
    /// `@handle`s; anyone one of them names may.
    public var allow: [String]

    public static let maxPerBot = 50
    public static let maxAllow = 20
    public static let maxUsageLength = 100
    public static let maxHelpLength = 200
    public static let roleNames = ["members", "admins", "owner", "bot_owner"]

    public init(name: String, usage: String? = nil, help: String? = nil, allow: [String] = ["members"]) {
        self.name = name
        self.usage = usage ?? "!\(name)"
        self.help = help ?? ""
        self.allow = allow.isEmpty ? ["members"] : allow
    }

    /// Whether someone with `role` in the chat (nil: not a member), handle `handle`, may
    /// run it; `isBotOwner` when they own the bot (or are the user a plugin acts as).
    public func permits(role: Role?, handle: String, isBotOwner: Bool) -> Bool {
        allow.contains { entry in
            switch entry {
            case "members": role != nil
            case "admins": role.map { $0 >= .admin } ?? false
            case "owner": role == .owner
            case "bot_owner": isBotOwner
            default: entry.dropFirst().lowercased() == handle.lowercased()
            }
        }
    }

    /// Whom it is for, in words: "the admins of #team", "@alice or @bob".
    public func allowedText(in chat: String) -> String {
        allow.map { entry in
            switch entry {
            case "members": "the members of \(chat)"
            case "admins": "the admins of \(chat)"
            case "owner": "the owner of \(chat)"
            case "bot_owner": "the bot's owner"
            default: entry
            }
        }.joined(separator: " or ")
    }

    /// Whether anyone in the chat may run it.
    public var isOpen: Bool { allow.contains("members") }

    /// The command checked: a name of lowercase letters, digits and '-' (up to 32), a
    /// usage and help without control characters, and `allow` entries that are role
    /// names or handles (written `@handle`, lowercase).
    public static func checked(_ command: ChatCommand) throws(ParleyError) -> ChatCommand {
        guard isName(command.name) else {
            throw ParleyError(.invalidArgument, "a command's name is 1–32 lowercase letters, digits and '-'")
        }
        guard command.usage.count <= maxUsageLength, command.help.count <= maxHelpLength,
            !(command.usage + command.help).unicodeScalars.contains(where: Limits.isControl)
        else {
            throw ParleyError(
                .invalidArgument,
                "a command's usage is up to \(maxUsageLength) characters and its help up to \(maxHelpLength), without control characters")
        }
        guard command.allow.count <= maxAllow else {
            throw ParleyError(.invalidArgument, "a command's allow lists up to \(maxAllow) entries")
        }
        var checked = command
        checked.allow = try command.allow.map { entry throws(ParleyError) -> String in
            if roleNames.contains(entry) { return entry }
            guard entry.hasPrefix("@"), let handle = try? Limits.userHandle(entry) else {
                throw ParleyError(.invalidArgument, "\"\(entry.prefix(40))\" is not members, admins, owner, bot_owner or an @handle")
            }
            return "@" + handle.lowercased()
        }
        if checked.allow.isEmpty { checked.allow = ["members"] }
        return checked
    }

    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 32
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}

/// A bot in a chat and the commands it declared.
public struct BotCommands: Hashable, Codable, Sendable {
    public var bot: UserRef
    public var commands: [ChatCommand]

    public init(bot: UserRef, commands: [ChatCommand]) {
        self.bot = bot
        self.commands = commands
    }
}
