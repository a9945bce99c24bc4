import Foundation
import ParleyCore

/// One line a plugin wrote, understood.
enum PluginAction: Sendable {
    case hello(BotHello)
    /// `{"type":"send","to":"#group"|"@user"|CHAT_ID,"text":"…","reply_to":SEQ,"thread":SEQ}`:
    /// `thread` sends into the thread of that message.
    case send(to: String, text: String, replyTo: Int64?, thread: Int64?, ref: JSONValue?)
    /// `{"type":"reply","text":"…","chat":CHAT_ID,"reply_to":SEQ|true,"thread":SEQ|false}`: to
    /// the chat of the given id, or of the last message the plugin was handed; `reply_to`
    /// answers a message of that chat (`true`: the last one handed over, kept as
    /// `lastHanded`). It goes into the thread the last message handed over was in, unless
    /// `thread` names another (`false`: the chat's main flow; kept as 0).
    case reply(chat: ChatID?, text: String, replyTo: Int64?, thread: Int64?, ref: JSONValue?)
    /// `{"type":"react","emoji":"👍","chat":CHAT_ID,"seq":SEQ}` (and `unreact`): chat and
    /// seq default to the last message the plugin was handed.
    case react(chat: ChatID?, seq: Int64?, emoji: String, add: Bool, ref: JSONValue?)
    /// `{"type":"command","line":"/members #g"}`, or a plain line starting with `/`.
    case command(line: String, ref: JSONValue?)
    case stateGet(key: String, ref: JSONValue?)
    case stateSet(key: String, value: JSONValue, ref: JSONValue?)
    /// `{"type":"schedule","name":"standup","cron":"0 9 * * mon-fri","tz":"Europe/Paris"}`
    /// (or `at`, `after`, `every`; `data`): checked when it runs, against the host's clock.
    case schedule([String: JSONValue], ref: JSONValue?)
    case unschedule(name: String, ref: JSONValue?)
    /// The bot's schedules, always answered (like `state_get`).
    case schedules(ref: JSONValue?)

    /// Whether the action counts against the rate limit (it reaches the chat service).
    var isLimited: Bool {
        switch self {
        case .send, .reply, .react, .command: true
        case .hello, .stateGet, .stateSet, .schedule, .unschedule, .schedules: false
        }
    }

    /// A question whose answer is the point: answered with a `result` even without a `ref`.
    var isAlwaysAnswered: Bool {
        switch self {
        case .stateGet, .schedules: true
        default: false
        }
    }

    var ref: JSONValue? {
        switch self {
        case .hello: nil
        case .send(_, _, _, _, let ref), .reply(_, _, _, _, let ref), .react(_, _, _, _, let ref), .command(_, let ref),
            .stateGet(_, let ref),
            .stateSet(_, _, let ref), .schedule(_, let ref), .unschedule(_, let ref), .schedules(let ref):
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
                    var allow: [String] = []
                    switch command["allow"] {
                    case .string(let one)?: allow = [one]
                    case .array(let many)?: allow = many.compactMap(\.string)
                    default: break
                    }
                    let declared = BotCommand(name: name, usage: command["usage"]?.string, help: command["help"]?.string, allow: allow)
                    do {
                        let checked = try ChatCommand.checked(declared.chatCommand)
                        hello.commands.append(
                            BotCommand(name: name, usage: command["usage"]?.string, help: command["help"]?.string, allow: checked.allow))
                    } catch {
                        hello.problems.append("command \(name): \(error.message)")
                    }
                }
            }
            if case .array(let schedules)? = object["schedules"] {
                for case .object(let fields) in schedules { hello.schedules.append(fields) }
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
            let thread: Int64?
            do { thread = try sequence(object["thread"], lastHanded: false) } catch {
                return fail("\"thread\" is the sequence number of a message whose thread it goes into")
            }
            return .success(.send(to: to, text: text, replyTo: replyTo, thread: thread, ref: ref))
        case "reply":
            guard let text = object["text"]?.string else { return fail("reply needs \"text\"") }
            let chat: ChatID?
            let replyTo: Int64?
            do { chat = try chatID(object["chat"] ?? object["chat_id"]) } catch { return fail("\"chat\" is a chat id (a whole number)") }
            do { replyTo = try sequence(object["reply_to"], lastHanded: true) } catch {
                return fail("\"reply_to\" is the sequence number of a message in the chat, or true for the last one handed over")
            }
            let thread: Int64?
            if case .bool(false)? = object["thread"] {
                thread = 0
            } else {
                do { thread = try sequence(object["thread"], lastHanded: false) } catch {
                    return fail("\"thread\" is the sequence number of a message whose thread it goes into, or false for the chat")
                }
            }
            return .success(.reply(chat: chat, text: text, replyTo: replyTo, thread: thread, ref: ref))
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
        case "schedule":
            return .success(.schedule(object, ref: ref))
        case "unschedule":
            guard let name = object["name"]?.string, !name.isEmpty else { return fail("unschedule needs \"name\"") }
            return .success(.unschedule(name: name, ref: ref))
        case "schedules":
            return .success(.schedules(ref: ref))
        default:
            return fail(
                "unknown action \"\(type)\" (send, reply, react, unreact, command, state_get, state_set, schedule, unschedule, "
                    + "schedules, hello)")
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
