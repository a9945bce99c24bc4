import Foundation
import ParleyCore

/// What a plugin writes: each line read, checked, and run as the bot's user, in order
/// and at the rate limit.
extension LoadedPlugin {
    /// A line from the plugin's stdout. Its actions run in order, at the rate limit;
    /// a reply without a chat takes the chat of the last message handed over now, when
    /// the line is read, not when its turn comes.
    func received(_ line: String) {
        actionsOut += 1
        switch PluginAction.parse(line) {
        case .failure(let problem):
            let shown = line.count > 200 ? String(line.prefix(200)) + "…" : line
            queue.push(.error(ref: problem.ref, problem.error, details: ["line": .string(shown)]))
        case .success(.hello(let declared)):
            apply(declared)
        case .success(var action):
            lastLineAt = .now
            // What refers to "the last message handed over" means the one handed by now.
            switch action {
            case .reply(let chat, let text, let replyTo, let thread, let ref):
                // Into the thread it was asked in, when it answers in that chat.
                let place = chat ?? lastMessageChat
                let asked = place != nil && place == lastHanded?.chat ? lastHandedThread : nil
                action = .reply(
                    chat: place, text: text, replyTo: replyTo == 0 ? lastHanded?.seq : replyTo, thread: thread ?? asked ?? 0, ref: ref)
            case .react(nil, nil, let emoji, let add, let ref):
                action = .react(chat: lastHanded?.chat, seq: lastHanded?.seq, emoji: emoji, add: add, ref: ref)
            default: break
            }
            if action.isLimited {
                guard outgoingLimited < limits.actionBacklog else {
                    let error = ParleyError(
                        .rateLimited,
                        "\(limits.actionBacklog) lines already wait their turn (\(limits.actionsPerSecond) a second); this one was dropped")
                    queue.push(.error(ref: action.ref, error, details: [:]))
                    return
                }
                outgoingLimited += 1
            }
            outgoing.append(action)
            if !draining {
                draining = true
                Task { await self.drain() }
            }
        }
    }

    /// Runs the waiting lines in order.
    func drain() async {
        while !stopping, !outgoing.isEmpty {
            let action = outgoing.removeFirst()
            do {
                let outcome = try await perform(action)
                if action.ref != nil || action.isAlwaysAnswered {
                    queue.push(.result(ref: action.ref, data: outcome.data))
                }
            } catch {
                queue.push(.error(ref: action.ref, ParleyError(error), details: [:]))
            }
            if action.isLimited { outgoingLimited -= 1 }
        }
        draining = false
    }

    func apply(_ declared: BotHello) {
        var declared = declared
        hello = declared
        host.declared.set(name, declared.commands, user: me.id)
        Task { await publishCommands() }
        // Schedules declared in the hello: one already kept with the same rule keeps its time.
        for fields in declared.schedules {
            if fields["after"] != nil {
                declared.problems.append(
                    "a schedule in a hello has \"at\", \"every\" or \"cron\" (\"after\" would start again at each start)")
                continue
            }
            do { _ = try schedule(fields) } catch {
                declared.problems.append("schedule \(fields["name"]?.string ?? "?"): \(ParleyError(error).message)")
            }
        }
        if !declared.problems.isEmpty {
            queue.push(
                .error(
                    ref: nil, ParleyError(.badHello, "the rest of the hello applies, but: " + declared.problems.joined(separator: "; ")),
                    details: ["problems": .array(declared.problems.map(JSONValue.string))]))
            runtime.log(name, "hello: " + declared.problems.joined(separator: "; "))
        }
    }

    /// Runs one action as the bot's user, paced by the rate limit.
    func perform(_ action: PluginAction) async throws -> ActionOutcome {
        if action.isLimited {
            let wait = limiter.take()
            if wait > .zero { try await Task.sleep(for: wait) }
        }
        switch action {
        case .hello(let declared):
            apply(declared)
            return ActionOutcome(data: [:])
        case .send(let address, let text, let replyTo, let thread, _):
            let recipient = try await resolve(address)
            let outgoing = OutgoingText(to: recipient, text: text, clientID: UUID().uuidString, via: via, replyTo: replyTo, thread: thread)
            return sent(try await service.send(outgoing))
        case .reply(let chat, let text, let replyTo, let thread, _):
            guard let chat = chat ?? lastMessageChat else {
                throw ParleyError(.invalidArgument, "nothing to reply to yet: give \"chat\", or use send")
            }
            guard replyTo != 0 else { throw ParleyError(.invalidArgument, "no message handed over yet to answer") }
            let outgoing = OutgoingText(
                to: .chat(chat), text: text, clientID: UUID().uuidString, via: via, replyTo: replyTo, thread: thread == 0 ? nil : thread)
            return sent(try await service.send(outgoing))
        case .react(let chat, let seq, let emoji, let add, _):
            guard let chat, let seq else {
                throw ParleyError(.invalidArgument, "nothing to react to yet: give \"chat\" and \"seq\"")
            }
            let counts =
                add
                ? try await service.react(chat: chat, seq: seq, emoji: emoji)
                : try await service.unreact(chat: chat, seq: seq, emoji: emoji)
            return ActionOutcome(data: ["reactions": JSONValue(wire: counts)])
        case .command(let line, _):
            guard let commander else { throw ParleyError(.unavailable, "this host runs no slash commands") }
            return ActionOutcome(data: try await commander.run(line))
        case .stateGet(let key, _):
            let stored = try runtime.state.value(bot: name, key: key)
            return ActionOutcome(data: ["key": .string(key), "value": try stored.map(JSONValue.parse) ?? .null])
        case .stateSet(let key, let value, _):
            let data = value == .null ? nil : value.jsonData
            if let data, data.count > BotRuntime.maxStateValueBytes {
                throw ParleyError(.invalidArgument, "a state value is at most \(BotRuntime.maxStateValueBytes) bytes of JSON")
            }
            try runtime.state.set(bot: name, key: key, value: data)
            return ActionOutcome(data: ["key": .string(key)])
        case .schedule(let fields, _):
            return try schedule(fields)
        case .unschedule(let scheduleName, _):
            return try unschedule(scheduleName)
        case .schedules:
            return listSchedules()
        }
    }

    /// A plugin acting as its user marks what it sends as a plugin's; a bot account's
    /// messages are known by the account.
    var via: String? { Self.via(name: name, me: me) }

    /// A plugin on a person's account labels its sends with its name, in the form a
    /// server takes (`Provenance.pluginName`); one on a bot account is the bot.
    static func via(name: String, me: User) -> String? { me.isBot ? nil : Provenance.pluginLabel(fromFileName: name) }

    func sent(_ message: Message) -> ActionOutcome {
        ActionOutcome(data: ["message": JSONValue(wire: message)], message: message)
    }

    /// `#group`, `@user` or a chat id.
    func resolve(_ address: String) async throws -> Recipient {
        if address.hasPrefix("#") { return .chat(try await service.group(handle: address).id) }
        if address.hasPrefix("@") { return .user(try await service.user(handle: address).id) }
        guard let id = Int64(address) else {
            throw ParleyError(.invalidArgument, "'\(address)' is not #group, @user or a chat id")
        }
        return .chat(ChatID(id))
    }
}
