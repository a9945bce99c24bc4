import Foundation
import ParleyCore
import Synchronization

/// One bot in a host: its connection, its queue of events, its guards, and (for a
/// plugin executable) the process that runs it, restarted with backoff when it crashes.
actor LoadedPlugin {
    enum Driver: Sendable {
        case process(path: String, arguments: [String])
        case swift(any Bot)
    }

    enum Status: Sendable {
        case running
        case restarting
        case exited(String)
        case failed(String)
        case stopped
    }

    // Members without `private` are used by the actions half in LoadedPlugin+Actions.swift.
    let name: String
    let driver: Driver
    let service: any ChatService
    let me: User
    let runtime: BotRuntime
    let host: BotHost
    let commander: (any BotCommander)?
    let queue: EventQueue
    let limiter: TokenBucket
    var hello = BotHello()
    private var process: PluginProcess?
    private var status = Status.running
    private var eventsIn = 0
    var actionsOut = 0
    private var dropped = 0
    private var restarts = 0
    private var recentRestarts: [ContinuousClock.Instant] = []
    private var stderrTail: [String] = []
    var lastMessageChat: ChatID?
    /// The last message handed to the bot, for a reply or reaction that names none.
    var lastHanded: (chat: ChatID, seq: Int64)?
    /// The thread the last message handed over was in (nil: its chat's main flow), where
    /// a reply to its chat goes by default.
    var lastHandedThread: Int64?
    /// When the last message event was handed over, and the plugin's last line came.
    private var handedAt: ContinuousClock.Instant?
    var lastLineAt: ContinuousClock.Instant?
    /// Lines waiting their turn under the rate limit, in order, and how many of them count.
    var outgoing: [PluginAction] = []
    var outgoingLimited = 0
    var draining = false
    /// Per chat, messages in a row from other plugins and bots (the loop guard).
    private var automatedRun: [Int64: Int] = [:]
    private var cursors: [Int64: Int64]
    private var tasks: [Task<Void, Never>] = []
    var stopping = false
    /// The bot's schedules by name, and the timer for the earliest (LoadedPlugin+Schedules.swift).
    var schedules: [String: BotSchedule] = [:]
    var timer: Task<Void, Never>?

    let limits: BotLimits

    private init(name: String, driver: Driver, service: any ChatService, me: User, limits: BotLimits, host: BotHost) throws {
        self.name = name
        self.driver = driver
        self.service = service
        self.me = me
        self.host = host
        runtime = host.runtime
        commander = runtime.commander?(service, me, Self.via(name: name, me: me))
        self.limits = limits
        queue = EventQueue(capacity: limits.queueCapacity)
        limiter = TokenBucket(perSecond: limits.actionsPerSecond, burst: limits.burst)
        cursors = try runtime.state.cursors(bot: name)
    }

    /// Signs the bot in, starts it, and returns once it runs.
    static func start(name: String, driver: Driver, handle: String?, limits: BotLimits, host: BotHost) async throws -> LoadedPlugin {
        let runtime = host.runtime
        let service = try await runtime.connect(name)
        do {
            let signedIn: SignedIn
            if let handle, let token = runtime.botToken {
                signedIn = try await service.signIn(botToken: token)
                guard signedIn.user.handle.lowercased() == (handle.hasPrefix("@") ? String(handle.dropFirst()) : handle).lowercased() else {
                    try? await service.signOut()
                    throw ParleyError(.badCredentials, "the token is @\(signedIn.user.handle)'s, not \(handle)'s")
                }
            } else if let handle {
                signedIn = try await BotAccounts(folder: runtime.accountsFolder).signIn(service, handle: handle, owner: runtime.owner)
            } else {
                guard let token = await runtime.userToken() else {
                    throw ParleyError(.notSignedIn, "sign in first, or give the bot its own account with --as @HANDLE")
                }
                signedIn = try await service.resume(token: token)
            }
            let plugin = try LoadedPlugin(name: name, driver: driver, service: service, me: signedIn.user, limits: limits, host: host)
            try await plugin.begin()
            return plugin
        } catch {
            await service.close()
            throw error
        }
    }

    private func begin() async throws {
        loadSchedules()
        if case .swift(let bot) = driver {
            apply(bot.hello)
            queue.push(.ready(bot: me, name: name))
        }
        if case .process = driver {
            let (candidate, outcome) = await spawn()
            if case .exited(let reason) = outcome { throw failure("did not start", reason) }
            if case .hello(let declared) = outcome { apply(declared) }
            process = candidate
        }
        let events = service.events
        tasks.append(
            Task { [weak self] in
                for await event in events {
                    guard let self else { return }
                    await self.accept(event)
                }
            })
        tasks.append(Task { [weak self] in await self?.forward() })
        tasks.append(Task { [weak self] in await self?.catchUp() })
        startSchedules()
    }

    // MARK: Events in

    /// Queues a chat event if this bot should see it.
    private func accept(_ event: ChatEvent) async {
        guard let botEvent = BotEvent(event), hello.wantedEvents.contains(botEvent.type) else { return }
        switch botEvent {
        case .message(let message):
            guard hears(message), await mayRun(message, live: true) else { return }
        case .missed(let message):
            guard hears(message), await mayRun(message, live: false) else { return }
        case .memberJoined(let change), .memberLeft(let change):
            if change.user.id == me.id { return }
        case .presence(let change):
            if change.user.id == me.id { return }
        default: break
        }
        queue.push(botEvent)
    }

    func enqueue(_ event: BotEvent) {
        queue.push(event)
    }

    /// Whether the bot hears a message: not its own user's, not one it had before, and
    /// one from a plugin or bot only if it asked for those and the loop guard lets it.
    private func hears(_ event: MessageEvent) -> Bool {
        let message = event.message
        let chat = event.chat.id.rawValue
        if message.seq <= cursors[chat, default: 0] { return false }
        let automated = message.sender.isBot || message.via != nil
        if !automated { automatedRun[chat] = nil }
        if message.sender.id == me.id { return false }
        guard automated else { return true }
        guard hello.botMessages else { return false }
        let run = automatedRun[chat, default: 0] + 1
        automatedRun[chat] = run
        if run == limits.automatedRun + 1 {
            queue.push(
                .error(
                    ref: nil,
                    ParleyError(
                        .botLoop,
                        "\(limits.automatedRun) messages in a row from plugins or bots in this chat: "
                            + "you hear no more of them here until a person speaks"),
                    details: ["chat": JSONValue(wire: event.chat)]))
        }
        return run <= limits.automatedRun
    }

    /// Messages that arrived while the bot was away, in chats it has seen before.
    private func catchUp() async {
        guard hello.wantedEvents.contains("message"), !cursors.isEmpty, let summaries = try? await service.chats() else { return }
        for summary in summaries {
            guard let cursor = cursors[summary.chat.id.rawValue], let last = summary.lastMessage, last.seq > cursor,
                let missed = try? await service.history(chat: summary.chat.id, limit: 100, before: nil)
            else { continue }
            for message in missed where message.seq > cursor {
                let event = MessageEvent(chat: summary.chat, message: message)
                if hears(event), await mayRun(event, live: false) { queue.push(.missed(event)) }
            }
        }
    }

    /// Hands queued events to the bot, one at a time.
    private func forward() async {
        while let (event, lost) = await queue.next() {
            if lost > 0 {
                dropped += lost
                await deliver(
                    .error(
                        ref: nil, ParleyError(.eventsDropped, "\(lost) events dropped: the bot fell behind"),
                        details: ["count": .number(Double(lost))]))
            }
            if let message = event.message { await waitForAnswer(before: message.chat.id) }
            await deliver(event)
        }
    }

    /// Holds a message from another chat until the plugin has answered the last one it
    /// was handed (`BotLimits.replyWait`), so that a reply without a chat goes where the
    /// plugin means it to.
    private func waitForAnswer(before chat: ChatID) async {
        guard case .process = driver, hello.replyWait, let last = lastMessageChat, last != chat, let handedAt else { return }
        while !stopping {
            let now = ContinuousClock.now
            if let lastLineAt, lastLineAt > handedAt {
                if now - lastLineAt >= limits.replyQuiet { return }
            } else if now - handedAt >= limits.replyWait {
                return
            }
            // A cancelled sleep returns at once: stop rather than spin.
            guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { return }
        }
    }

    private func deliver(_ event: BotEvent) async {
        // Noted before the bot has it, so a reply it sends at once knows its chat.
        if let message = event.message { noteHanded(message) }
        eventsIn += 1
        switch driver {
        case .swift(let bot):
            await bot.handle(event, context: BotContext(plugin: self, me: me))
        case .process:
            let line = event.jsonLine(myHandle: me.handle)
            while !stopping {
                if let process, await process.write(line) { break }
                guard case .restarting = status else { return }
                guard (try? await Task.sleep(for: .milliseconds(20))) != nil else { return }
            }
        }
    }

    func noteHanded(_ message: MessageEvent) {
        handedAt = .now
        lastMessageChat = message.chat.id
        lastHanded = (message.chat.id, message.message.seq)
        lastHandedThread = message.message.thread
        let chat = message.chat.id.rawValue
        if message.message.seq > cursors[chat, default: 0] {
            cursors[chat] = message.message.seq
            try? runtime.state.advance(bot: name, chat: chat, to: message.message.seq)
        }
    }

    // MARK: The process

    private enum StartOutcome {
        case hello(BotHello)
        case running
        case exited(String)
    }

    /// Starts a process and waits until it has said hello, or written something else, or
    /// stayed up for `helloWait`, or ended. A restart makes it the current process at
    /// once (`current`), so its crash is handled like any other; a load or a reload
    /// adopts it only if it starts.
    private func spawn(current: Bool = false) async -> (PluginProcess, StartOutcome) {
        guard case .process(let path, let arguments) = driver else { fatalError("spawn of a Swift bot") }
        let start = StartSignal()
        let handlers = PluginProcess.Handlers(
            line: { [weak self] line in
                if !start.isSettled {
                    var hello: BotHello?
                    if case .success(.hello(let declared)) = PluginAction.parse(line) { hello = declared }
                    start.firstLine(hello: hello)
                }
                await self?.received(line)
            },
            stderr: { [weak self] line in
                Task { await self?.stderr(line) }
            },
            exit: { [weak self] termination in
                start.ended(termination)
                Task { await self?.exited(termination, signal: start) }
            })
        let environment = ["PARLEY_BOT_NAME": name, "PARLEY_BOT_HANDLE": me.handle, "PYTHONUNBUFFERED": "1"]
        let candidate = await PluginProcess.start(path: path, arguments: arguments, environment: environment, handlers: handlers)
        // Both before the next suspension: an exit handler that already fired runs after them.
        start.bind(candidate)
        if current { process = candidate }
        _ = await candidate.write(BotEvent.ready(bot: me, name: name).jsonLine())
        let outcome = await start.wait(timeout: limits.helloWait)
        switch outcome {
        case .ended(let termination):
            try? await Task.sleep(for: .milliseconds(50))  // let its last stderr lines arrive
            return (candidate, .exited(termination.description))
        case .hello(let hello): return (candidate, .hello(hello))
        case .line, .timeout: return (candidate, .running)
        }
    }

    private func stderr(_ line: String) {
        runtime.log(name, line)
        stderrTail.append(line)
        if stderrTail.count > 20 { stderrTail.removeFirst(stderrTail.count - 20) }
    }

    private func failure(_ what: String, _ reason: String) -> ParleyError {
        var message = "plugin \(name) \(what) (\(reason))"
        let tail = stderrTail.suffix(5)
        if !tail.isEmpty { message += "; its last stderr lines:\n" + tail.map { "  " + $0 }.joined(separator: "\n") }
        return ParleyError(.pluginFailed, message)
    }

    /// The current process ended: restart it with backoff, or leave it stopped.
    private func exited(_ termination: PluginProcess.Termination, signal: StartSignal) async {
        guard !stopping, let process, signal.process === process else { return }
        if termination.isCleanExit {
            status = .exited(termination.description)
            runtime.notify("plugin \(name) exited (\(termination))")
            return
        }
        let now = ContinuousClock.now
        recentRestarts.removeAll { now - $0 > .seconds(60) }
        guard recentRestarts.count < limits.restartsPerMinute else {
            let error = failure("crashed \(limits.restartsPerMinute + 1) times in a minute and is left stopped", termination.description)
            status = .failed(termination.description)
            runtime.notify(error.message)
            return
        }
        let delay = limits.restartBackoff * (1 << recentRestarts.count)
        recentRestarts.append(now)
        status = .restarting
        runtime.notify("plugin \(name) crashed (\(termination)); restarting in \(Self.describe(delay))")
        try? await Task.sleep(for: delay)
        guard !stopping, case .restarting = status else { return }
        restarts += 1
        let (candidate, _) = await spawn(current: true)
        // If it ended already, its exit handler has counted it and decided what follows.
        if candidate.termination == nil { status = .running }
    }

    /// Replaces the process with a new one, once the new one is running.
    func reload() async throws {
        guard case .process = driver else { throw ParleyError(.invalidArgument, "a Swift bot cannot be reloaded") }
        let (candidate, outcome) = await spawn()
        if case .exited(let reason) = outcome { throw failure("did not start; the old process keeps running", reason) }
        if case .hello(let declared) = outcome { apply(declared) }
        let old = process
        process = candidate
        status = .running
        recentRestarts = []
        await old?.stop(grace: limits.stopGrace)
    }

    func stop() async {
        stopping = true
        status = .stopped
        for task in tasks { task.cancel() }
        timer?.cancel()
        queue.close()
        await process?.stop(grace: limits.stopGrace)
        await service.close()
    }

    func info() -> PluginInfo {
        let path: String
        switch driver {
        case .process(let executable, _): path = executable
        case .swift(let bot): path = "swift:\(type(of: bot))"
        }
        let state: String
        switch status {
        case .running: state = "running"
        case .restarting: state = "restarting"
        case .exited(let reason): state = "exited (\(reason))"
        case .failed(let reason): state = "failed (\(reason))"
        case .stopped: state = "stopped"
        }
        return PluginInfo(
            name: name, path: path, user: me.handle, pid: process?.termination == nil ? process?.pid : nil, state: state,
            eventsIn: eventsIn, actionsOut: actionsOut, dropped: dropped + queue.unreportedDrops, restarts: restarts,
            commands: hello.commands.map(\.name))
    }

    static func describe(_ duration: Duration) -> String {
        let milliseconds = Int(duration.seconds * 1000)
        return milliseconds < 1000 ? "\(milliseconds) ms" : String(format: "%.1f s", Double(milliseconds) / 1000)
    }
}
