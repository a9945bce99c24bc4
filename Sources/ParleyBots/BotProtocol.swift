public import Foundation
public import ParleyCore
import ParleyProtocol

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

/// What the host hands a bot: a chat event the bot wants, a command typed in the
/// shell, or the outcome of one of its actions.
public enum BotEvent: Hashable, Sendable {
    case ready(bot: User, name: String)
    case message(MessageEvent)
    /// A message sent while the bot was away, handed over when it starts: a `message`
    /// with `"catch_up": true`, so a bot can tell old commands from new.
    case missed(MessageEvent)
    case memberJoined(MemberChange)
    case memberLeft(MemberChange)
    case presence(PresenceChange)
    case edited(MessageEvent)
    case deleted(MessageEvent)
    case reaction(ReactionChange)
    case command(BotCommandCall)
    /// An action succeeded; `data` holds what it produced (a message, a value, a command's result).
    case result(ref: JSONValue?, data: [String: JSONValue])
    /// An action failed, a line could not be read, or events were dropped.
    case error(ref: JSONValue?, ParleyError, details: [String: JSONValue])

    /// The message of a `message` event, live or caught up.
    public var message: MessageEvent? {
        switch self {
        case .message(let event), .missed(let event): event
        default: nil
        }
    }

    /// The event's name on the wire and in a plugin's `events` list.
    public var type: String {
        switch self {
        case .ready: "ready"
        case .message, .missed: "message"
        case .memberJoined: "member_joined"
        case .memberLeft: "member_left"
        case .presence: "presence_changed"
        case .edited: "message_edited"
        case .deleted: "message_deleted"
        case .reaction: "reaction_changed"
        case .command: "command"
        case .result: "result"
        case .error: "error"
        }
    }

    /// The bot event for a chat event, when bots are told about that kind.
    init?(_ event: ChatEvent) {
        switch event {
        case .message(let message): self = .message(message)
        case .memberJoined(let change): self = .memberJoined(change)
        case .memberLeft(let change), .memberKicked(let change): self = .memberLeft(change)
        case .presenceChanged(let change): self = .presence(change)
        case .messageEdited(let event): self = .edited(event)
        case .messageDeleted(let event): self = .deleted(event)
        case .reactionChanged(let change): self = .reaction(change)
        default: return nil
        }
    }

    /// One JSON line (without the newline), keys in snake_case as on the server's wire.
    /// A message names its `mentions`, and says whether they include the bot's user
    /// (`mentioned_me`, with `myHandle`).
    public func jsonLine(myHandle: String? = nil) -> Data {
        // Chat events, the bulk of the traffic, are encoded once, straight from the model.
        let mentioned = { (event: MessageEvent) in myHandle.map { event.message.mentions($0) } }
        switch self {
        case .message(let event): return Self.line(type, event, mentionedMe: mentioned(event))
        case .missed(let event): return Self.line(type, event, catchUp: true, mentionedMe: mentioned(event))
        case .memberJoined(let change), .memberLeft(let change): return Self.line(type, change)
        case .presence(let change): return Self.line(type, change)
        case .edited(let event), .deleted(let event): return Self.line(type, event)
        case .reaction(let change): return Self.line(type, change)
        case .command(let call): return Self.line(type, call)
        default: break
        }
        // The rest carry plugin-given JSON, whose keys must not be converted to snake_case.
        var object: [String: JSONValue] = ["type": .string(type)]
        switch self {
        case .ready(let bot, let name):
            object["protocol"] = .number(Double(botProtocolVersion))
            object["name"] = .string(name)
            object["bot"] = JSONValue(wire: bot.ref)
        case .message, .missed, .memberJoined, .memberLeft, .presence, .edited, .deleted, .reaction, .command:
            break
        case .result(let ref, let data):
            object.merge(data) { $1 }
            object["ok"] = .bool(true)
            if let ref { object["ref"] = ref }
        case .error(let ref, let error, let details):
            object.merge(details) { $1 }
            object["code"] = .string(error.code.rawValue)
            object["message"] = .string(error.message)
            if let ref { object["ref"] = ref }
        }
        return JSONValue.object(object).jsonData
    }
}

extension BotEvent {
    private static let wireEncoder = Wire.encoder()

    /// `{"type": TYPE, …the payload's own fields}` in the wire's format, with
    /// `"catch_up": true` for a message handed over late.
    private static func line(_ type: String, _ payload: some Encodable, catchUp: Bool = false, mentionedMe: Bool? = nil) -> Data {
        (try? wireEncoder.encode(Typed(type: type, catchUp: catchUp, mentionedMe: mentionedMe, payload: payload)))
            ?? Data("{\"type\":\"\(type)\"}".utf8)
    }

    private struct Typed<Payload: Encodable>: Encodable {
        let type: String
        let catchUp: Bool
        let mentionedMe: Bool?
        let payload: Payload

        private enum Key: String, CodingKey { case type, catchUp, mentionedMe }

        func encode(to encoder: any Encoder) throws {
            try payload.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(type, forKey: .type)
            if catchUp { try container.encode(true, forKey: .catchUp) }
            try container.encodeIfPresent(mentionedMe, forKey: .mentionedMe)
        }
    }
}

extension JSONValue {
    private static let wireEncoder = Wire.encoder()

    /// A model value as the server's wire shows it (snake_case keys, ISO dates).
    public init(wire value: some Encodable) {
        guard let data = try? Self.wireEncoder.encode(value), let parsed = try? JSONValue.parse(data) else {
            self = .null
            return
        }
        self = parsed
    }
}

/// One line a plugin wrote, understood.
enum PluginAction: Sendable {
    case hello(BotHello)
    /// `{"type":"send","to":"#group"|"@user"|CHAT_ID,"text":"…","reply_to":SEQ}`
    case send(to: String, text: String, replyTo: Int64?, ref: JSONValue?)
    /// `{"type":"reply","text":"…","chat":CHAT_ID,"reply_to":SEQ|true}`: to the chat of the
    /// given id, or of the last message the plugin was handed; `reply_to` answers a
    /// message of that chat (`true`: the last one handed over, kept as `lastHanded`).
    case reply(chat: ChatID?, text: String, replyTo: Int64?, ref: JSONValue?)
    /// `{"type":"react","emoji":"👍","chat":CHAT_ID,"seq":SEQ}` (and `unreact`): chat and
    /// seq default to the last message the plugin was handed.
    case react(chat: ChatID?, seq: Int64?, emoji: String, add: Bool, ref: JSONValue?)
    /// `{"type":"command","line":"/members #g"}`, or a plain line starting with `/`.
    case command(line: String, ref: JSONValue?)
    case stateGet(key: String, ref: JSONValue?)
    case stateSet(key: String, value: JSONValue, ref: JSONValue?)

    /// Whether the action counts against the rate limit (it reaches the chat service).
    var isLimited: Bool {
        switch self {
        case .send, .reply, .react, .command: true
        case .hello, .stateGet, .stateSet: false
        }
    }

    var ref: JSONValue? {
        switch self {
        case .hello: nil
        case .send(_, _, _, let ref), .reply(_, _, _, let ref), .react(_, _, _, _, let ref), .command(_, let ref), .stateGet(_, let ref),
            .stateSet(_, _, let ref):
            ref
        }
    }

    /// Reads one line; a failure carries the line's `ref`, if it had one.
    static func parse(_ line: String) -> Result<PluginAction, LineError> {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("/") { return .success(.command(line: trimmed, ref: nil)) }
        guard trimmed.hasPrefix("{"), let value = try? JSONValue.parse(Data(trimmed.utf8)), case .object(let object) = value else {
            return .failure(LineError(ref: nil, error: ParleyError(.badLine, "not a JSON object or a slash command")))
        }
        let ref = object["ref"]
        func fail(_ message: String) -> Result<PluginAction, LineError> {
            .failure(LineError(ref: ref, error: ParleyError(.badLine, message)))
        }
        guard let type = object["type"]?.string else { return fail("a line needs a \"type\"") }
        switch type {
        case "hello":
            var hello = BotHello()
            hello.name = object["name"]?.string
            // What can be used is; the rest is reported back (`BotHello.problems`).
            if case .array(let events)? = object["events"] {
                let names = Set(events.compactMap(\.string).map { BotHello.formerNames[$0] ?? $0 })
                let unknown = names.subtracting(BotHello.knownEvents)
                if !unknown.isEmpty {
                    hello.problems.append(
                        "unknown event\(unknown.count == 1 ? "" : "s") \(unknown.sorted().map { "\"\($0)\"" }.joined(separator: ", ")) "
                            + "(known: \(BotHello.knownEvents.sorted().joined(separator: ", ")))")
                }
                hello.events = names.intersection(BotHello.knownEvents)
            }
            if case .bool(let wants)? = object["bot_messages"] { hello.botMessages = wants }
            if case .bool(let wait)? = object["reply_wait"] { hello.replyWait = wait }
            if case .array(let commands)? = object["commands"] {
                for command in commands {
                    guard let name = command["name"]?.string, Self.isCommandName(name) else {
                        hello.problems.append("a command needs a \"name\" of lowercase letters, digits and '-' (up to 32)")
                        continue
                    }
                    hello.commands.append(BotCommand(name: name, usage: command["usage"]?.string, help: command["help"]?.string))
                }
            }
            return .success(.hello(hello))
        case "send":
            guard let to = object["to"].flatMap(Self.address), let text = object["text"]?.string else {
                return fail("send needs \"to\" (#group, @user or a chat id) and \"text\"")
            }
            let replyTo: Int64?
            do { replyTo = try sequence(object["reply_to"], lastHanded: false) } catch {
                return fail("\"reply_to\" is the sequence number of a message in the same chat")
            }
            return .success(.send(to: to, text: text, replyTo: replyTo, ref: ref))
        case "reply":
            guard let text = object["text"]?.string else { return fail("reply needs \"text\"") }
            let chat: ChatID?
            let replyTo: Int64?
            do { chat = try chatID(object["chat"] ?? object["chat_id"]) } catch { return fail("\"chat\" is a chat id (a whole number)") }
            do { replyTo = try sequence(object["reply_to"], lastHanded: true) } catch {
                return fail("\"reply_to\" is the sequence number of a message in the chat, or true for the last one handed over")
            }
            return .success(.reply(chat: chat, text: text, replyTo: replyTo, ref: ref))
        case "react", "unreact":
            guard let emoji = object["emoji"]?.string else { return fail("\(type) needs \"emoji\"") }
            let chat: ChatID?
            let seq: Int64?
            do { chat = try chatID(object["chat"] ?? object["chat_id"]) } catch { return fail("\"chat\" is a chat id (a whole number)") }
            do { seq = try sequence(object["seq"], lastHanded: false) } catch { return fail("\"seq\" is a message's sequence number") }
            return .success(.react(chat: chat, seq: seq, emoji: emoji, add: type == "react", ref: ref))
        case "command":
            guard let line = object["line"]?.string else { return fail("command needs \"line\", like \"/members #swift\"") }
            return .success(.command(line: line.hasPrefix("/") ? line : "/" + line, ref: ref))
        case "state_get":
            guard let key = object["key"]?.string, !key.isEmpty else { return fail("state_get needs \"key\"") }
            return .success(.stateGet(key: key, ref: ref))
        case "state_set":
            guard let key = object["key"]?.string, !key.isEmpty else { return fail("state_set needs \"key\"") }
            return .success(.stateSet(key: key, value: object["value"] ?? .null, ref: ref))
        default:
            return fail("unknown action \"\(type)\" (send, reply, react, unreact, command, state_get, state_set, hello)")
        }
    }

    private struct InvalidField: Error {}

    /// A sequence number: nil when absent; a whole number of 1 or more; or, where
    /// `lastHanded` allows, `true` for the last message handed over (written 0 here).
    private static func sequence(_ value: JSONValue?, lastHanded: Bool) throws(InvalidField) -> Int64? {
        switch value {
        case nil, .null?: return nil
        case .bool(true)? where lastHanded: return 0
        case .number(let number)?:
            guard let seq = Int64(exactly: number), seq >= 1 else { throw InvalidField() }
            return seq
        default: throw InvalidField()
        }
    }

    /// A chat id: nil when absent, else a whole number.
    private static func chatID(_ value: JSONValue?) throws(InvalidField) -> ChatID? {
        switch value {
        case nil, .null?: return nil
        case .number(let number)?:
            guard let id = Int64(exactly: number) else { throw InvalidField() }
            return ChatID(id)
        default: throw InvalidField()
        }
    }

    private static func address(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): text
        case .number(let number): Int64(exactly: number).map(String.init)
        default: nil
        }
    }

    static func isCommandName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 32
            && name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-" }
    }
}

struct LineError: Error {
    var ref: JSONValue?
    var error: ParleyError
}

extension ErrorCode {
    /// A plugin wrote a line that is neither a JSON action nor a slash command.
    public static let badLine = ErrorCode("bad_line")
    /// A plugin was slower than its events; the oldest were dropped.
    public static let eventsDropped = ErrorCode("events_dropped")
    public static let pluginFailed = ErrorCode("plugin_failed")
    /// Parts of a plugin's hello the host could not use; the rest applies.
    public static let badHello = ErrorCode("bad_hello")
    /// The loop guard stopped handing a plugin messages from other plugins in a chat.
    public static let botLoop = ErrorCode("bot_loop")
    public static let unknownPlugin = ErrorCode("unknown_plugin")
}
