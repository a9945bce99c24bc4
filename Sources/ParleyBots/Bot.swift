public import Foundation
public import ParleyCore

/// A bot written in Swift, run in-process by a `BotHost` with the same guards as a
/// plugin process: it never sees its own messages, its actions are rate limited, and
/// a slow bot loses its oldest events rather than holding up anyone else.
///
/// ```swift
/// struct Greeter: Bot {
///     var hello: BotHello { BotHello(name: "greeter", events: ["member_joined"]) }
///     func handle(_ event: BotEvent, context: BotContext) async {
///         if case .memberJoined(let change) = event {
///             _ = try? await context.send(to: String(change.chat.id.rawValue), "welcome, \(change.user.displayName)!")
///         }
///     }
/// }
/// let info = try await host.load(bot: Greeter(), as: "greeter")
/// ```
public protocol Bot: Sendable {
    /// What a plugin would say in its `hello`: name, events, commands.
    var hello: BotHello { get }
    /// Called for each event, one at a time, in order.
    func handle(_ event: BotEvent, context: BotContext) async
}

/// What a Swift bot can do: the actions of the plugin protocol, as calls.
public struct BotContext: Sendable {
    let plugin: LoadedPlugin
    /// The bot's own user.
    public let me: User

    /// Sends to `#group`, `@user` (their direct chat) or a chat id.
    @discardableResult
    public func send(to address: String, _ text: String) async throws -> Message {
        try await plugin.perform(.send(to: address, text: text, replyTo: nil, thread: nil, ref: nil)).sent()
    }

    /// Sends to the chat of `message`, into the thread it is in (if it is in one; with
    /// `inChat`, to the chat's main flow); with `quoting`, as an answer to it.
    @discardableResult
    public func reply(to message: MessageEvent, _ text: String, quoting: Bool = false, inChat: Bool = false) async throws -> Message {
        let thread = inChat ? 0 : message.message.thread ?? 0
        return try await plugin.perform(
            .reply(chat: message.chat.id, text: text, replyTo: quoting ? message.message.seq : nil, thread: thread, ref: nil)
        ).sent()
    }

    /// Sends into the thread of `message` (the one it is in, or the one it starts).
    @discardableResult
    public func replyInThread(to message: MessageEvent, _ text: String) async throws -> Message {
        let root = message.message.thread ?? message.message.seq
        return try await plugin.perform(.reply(chat: message.chat.id, text: text, replyTo: nil, thread: root, ref: nil)).sent()
    }

    /// Reacts to `message` with an emoji.
    public func react(to message: MessageEvent, _ emoji: String) async throws {
        _ = try await plugin.perform(.react(chat: message.chat.id, seq: message.message.seq, emoji: emoji, add: true, ref: nil))
    }

    /// Runs a slash command as the bot's user; returns its JSON result.
    public func command(_ line: String) async throws -> JSONValue {
        try await plugin.perform(.command(line: line, ref: nil)).data["data"] ?? .null
    }

    /// The value stored under `key`, surviving restarts.
    public func state(_ key: String) async throws -> JSONValue? {
        let value = try await plugin.perform(.stateGet(key: key, ref: nil)).data["value"]
        return value == .null ? nil : value
    }

    /// Stores `value` under `key`; nil removes it.
    public func setState(_ key: String, _ value: JSONValue?) async throws {
        _ = try await plugin.perform(.stateSet(key: key, value: value ?? .null, ref: nil))
    }
}

/// When a Swift bot's schedule fires (`BotContext.schedule`).
public enum ScheduleTime: Sendable {
    case at(Date)
    case after(Duration)
    case every(Duration)
    /// A cron expression (`CronExpression`) in a time zone named as `TimeZone(identifier:)` takes it.
    case cron(String, timeZone: String = "UTC")

    var fields: [String: JSONValue] {
        switch self {
        case .at(let date): ["at": .string(BotSchedule.format(date))]
        case .after(let delay): ["after": .number(delay.seconds)]
        case .every(let interval): ["every": .number(interval.seconds)]
        case .cron(let expression, let zone): ["cron": .string(expression), "tz": .string(zone)]
        }
    }
}

extension BotContext {
    /// Asks for a `.tick` event named `name` at `time`, kept across restarts; replaces
    /// a schedule of the same name. Returns it as kept, with its next time.
    @discardableResult
    public func schedule(_ name: String, _ time: ScheduleTime, data: JSONValue? = nil) async throws -> BotSchedule {
        var fields = time.fields
        fields["name"] = .string(name)
        if let data { fields["data"] = data }
        _ = try await plugin.perform(.schedule(fields, ref: nil))
        guard let kept = await plugin.schedules[name] else { throw ParleyError(.internalError, "the schedule was not kept") }
        return kept
    }

    /// Cancels a schedule (`unknown_schedule` if there is none of that name).
    public func unschedule(_ name: String) async throws {
        _ = try await plugin.perform(.unschedule(name: name, ref: nil))
    }

    /// The bot's schedules, soonest first.
    public func schedules() async -> [BotSchedule] {
        await plugin.schedules.values.sorted { ($0.next, $0.name) < ($1.next, $1.name) }
    }
}

/// What an action produced: the fields of its `result` line, and the message it sent.
struct ActionOutcome: Sendable {
    var data: [String: JSONValue]
    var message: Message?

    func sent() throws -> Message {
        guard let message else { throw ParleyError(.internalError, "the action sent no message") }
        return message
    }
}
