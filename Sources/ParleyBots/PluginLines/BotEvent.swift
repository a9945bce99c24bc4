public import Foundation
public import ParleyCore
import ParleyProtocol

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
    /// A schedule of the bot's came due (`schedule` action).
    case tick(BotTick)
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
        case .tick: "tick"
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
        case .tick(let tick):
            object["name"] = .string(tick.name)
            object["due"] = .string(BotSchedule.format(tick.due))
            object["late"] = .bool(tick.late)
            if let data = tick.data { object["data"] = data }
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

/// A schedule that came due: its name, the time it was due, whether that time passed
/// while the host was down (then it fires once, however many times were missed), and
/// the data it was given.
public struct BotTick: Hashable, Sendable {
    public var name: String
    public var due: Date
    public var late: Bool
    public var data: JSONValue?

    public init(name: String, due: Date, late: Bool, data: JSONValue?) {
        self.name = name
        self.due = due
        self.late = late
        self.data = data
    }
}

extension BotEvent {
    /// The wire's encoder with its keys sorted: every line a plugin reads has its keys in
    /// one order, which a plugin in sh or awk can rely on.
    private static let wireEncoder: JSONEncoder = {
        let encoder = Wire.encoder()
        encoder.outputFormatting.insert(.sortedKeys)
        return encoder
    }()

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
