public import Foundation
public import ParleyCore

/// Arguments of the bot-token, bot-command, reminder and hook ops.
extension Args {
    public struct BotTokenSecret: Codable, Sendable {
        public var token: String
        public init(token: String) { self.token = token }
    }

    public struct CreateBotToken: Codable, Sendable {
        public var bot: UserID
        public var name: String
        public init(bot: UserID, name: String) {
            self.bot = bot
            self.name = name
        }
    }

    public struct Bot: Codable, Sendable {
        public var bot: UserID
        public init(bot: UserID) { self.bot = bot }
    }

    public struct Remind: Codable, Sendable {
        public var text: String
        public var at: Date
        public var chat: ChatID?
        public init(text: String, at: Date, chat: ChatID?) {
            self.text = text
            self.at = at
            self.chat = chat
        }
    }

    public struct ReportMessage: Codable, Sendable {
        public var chat: ChatID
        public var seq: Int64
        public var reason: String?
        public init(chat: ChatID, seq: Int64, reason: String?) {
            self.chat = chat
            self.seq = seq
            self.reason = reason
        }
    }

    public struct ReportQueue: Codable, Sendable {
        public var all: Bool?
        public init(all: Bool?) { self.all = all }
    }

    public struct ResolveReport: Codable, Sendable {
        public var id: Int64
        public var note: String?
        public init(id: Int64, note: String?) {
            self.id = id
            self.note = note
        }
    }

    public struct Notify: Codable, Sendable {
        public var chat: ChatID
        public var level: NotifyLevel?
        public init(chat: ChatID, level: NotifyLevel?) {
            self.chat = chat
            self.level = level
        }
    }

    public struct ReminderID: Codable, Sendable {
        public var id: Int64
        public init(id: Int64) { self.id = id }
    }

    public struct BotCommandList: Codable, Sendable {
        public var commands: [ChatCommand]
        public init(commands: [ChatCommand]) { self.commands = commands }
    }

    public struct BotTokenID: Codable, Sendable {
        public var bot: UserID
        public var token: Int64
        public init(bot: UserID, token: Int64) {
            self.bot = bot
            self.token = token
        }
    }

    /// `create_hook`: a group, the hook's name, and a signing secret for signed posts.
    public struct CreateHook: Codable, Sendable {
        public var chat: ChatID
        public var name: String
        public var signingSecret: String?
        public init(chat: ChatID, name: String, signingSecret: String?) {
            self.chat = chat
            self.name = name
            self.signingSecret = signingSecret
        }
    }

    public struct CreateOutgoingHook: Codable, Sendable {
        public var chat: ChatID
        public var name: String
        public var url: String
        public var trigger: String
        public init(chat: ChatID, name: String, url: String, trigger: String) {
            self.chat = chat
            self.name = name
            self.url = url
            self.trigger = trigger
        }
    }

    public struct HookID: Codable, Sendable {
        public var chat: ChatID
        public var hook: Int64
        public init(chat: ChatID, hook: Int64) {
            self.chat = chat
            self.hook = hook
        }
    }
}
