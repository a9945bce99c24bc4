public import Foundation
public import ParleyBots
public import ParleyCore

/// The slash-command shell over one `ChatService` connection. Line input (readline or a
/// script) feeds `execute`; results and events go to `output`.
///
/// ```swift
/// let shell = Shell(service: engine.connect(), settings: settings)
/// try await shell.execute("/login @alice --password-env PW")
/// ```
public actor Shell {
    public struct Settings: Sendable {
        public var dataFolder: URL
        public var output: Output
        /// True when a person types at a terminal (password prompts, notes).
        public var interactive: Bool
        /// Expands `$VAR` in arguments (scripts).
        public var environment: [String: String]?
        /// Where `--password-env`, `--id-token-env` and `--signing-secret-env` look: the
        /// process's environment, or the one a shell run in process was given.
        public var variables = ProcessInfo.processInfo.environment
        /// Reads a line without echo, for password prompts on a terminal.
        public var readSecret: (@Sendable (String) async -> String?)?
        /// Asks a yes/no question on a terminal.
        public var confirm: (@Sendable (String) async -> Bool)?
        /// Where each chat is logged as its messages come (`--log-dir`), if anywhere.
        public var logs: ChatLogs?
        /// Shown by `/status`.
        public var modeDescription: String
        /// The server's HTTP address, for the URLs it serves (a hook's); nil embedded.
        public var httpURL: String?
        /// Opens a connection to a server for `/connect URL`.
        public var connect: (@Sendable (String) async throws -> ServiceLink)?
        /// Opens another connection to the same engine or server, for a bot plugin
        /// (named, for a client that keeps files per connection). Nil: no plugins.
        public var anotherConnection: (@Sendable (String) async throws -> any ChatService)?
        /// Where plugins keep their state, for a data folder: the embedder says (the
        /// launcher: the folder's `bots.sqlite`). Nil: no plugins.
        public var botState: (@Sendable (URL) throws -> any BotState)?
        /// Shows a line above the prompt (a plugin crashed, a queued send went out).
        public var announce: (@Sendable (String) -> Void)?
        /// Where plugins' stderr lines go; by default `plugins.log` in the data folder.
        public var pluginLog: (@Sendable (String, String) -> Void)?
        /// The guards' numbers for plugins.
        public var botLimits = BotLimits()
        /// Draw image previews (a terminal with 24-bit colour, not `--no-preview`).
        public var preview = false
        /// The plugin whose slash-command lines this shell runs for its user: every
        /// message it sends carries it, as a plugin's JSON sends do, so the loop guard
        /// of other plugins counts it. Nil for a person's shell.
        public var via: String?
        /// Show progress bars for large uploads and downloads (a terminal).
        public var showProgress = false
        /// The terminal's width, for sizing previews.
        public var terminalColumns = 80
        /// Shows who is typing in the current chat before the prompt (nil: nobody).
        public var status: (@Sendable (String?) -> Void)?

        public init(dataFolder: URL, output: Output, interactive: Bool, environment: [String: String]?, modeDescription: String) {
            self.dataFolder = dataFolder
            self.output = output
            self.interactive = interactive
            self.environment = environment
            self.modeDescription = modeDescription
        }
    }

    public enum Outcome: Sendable {
        case proceed
        case quit
    }

    /// Who an event is shown to, and whether it should get their attention: a message
    /// that mentions them, or a direct message outside the current chat.
    public struct Viewer: Sendable {
        public var me: UserID?
        public var handle: String?
        public var alert: Bool
    }

    var service: any ChatService
    var settings: Settings
    /// The connection the shell talks through now (`/connect` may have replaced it).
    public var connection: any ChatService { service }
    let inbox = Inbox()
    public nonisolated let completions = CompletionCache()
    var me: User?
    /// The chat lines go to. An interactive shell keeps it in the data folder and opens
    /// in it again next time.
    var current: ChatTarget? {
        didSet {
            guard settings.interactive else { return }
            do {
                try CurrentChatFile(folder: settings.dataFolder).save(current?.label, for: me)
            } catch {
                output.note("cannot remember the current chat for next time: \(error.message)")
            }
        }
    }
    /// Chats named in this run, by `#group` or `@user`: a send to one while the server
    /// cannot be reached is queued rather than refused for want of a lookup.
    var knownTargets: [String: ChatTarget] = [:]
    /// The number the last `/login +PHONE` sent a code to, for `/code`.
    var pendingPhone: String?
    /// Called for each live event, e.g. to print it above the prompt.
    private var eventSink: (@Sendable (ChatEvent, Viewer) -> Void)?
    /// Who is typing in which chat, and since when.
    var typists: [ChatID: [String: ContinuousClock.Instant]] = [:]
    /// When this user last told a chat they are typing.
    var typingSent: [ChatID: ContinuousClock.Instant] = [:]
    /// Other chats with news since they were last current (`Shell+Hotlist`).
    var hot: [ThreadKey: HotChat] = [:]
    /// How the user stands on the threads whose messages arrived (`Shell+Threads`).
    var threadStances: [ThreadKey: ThreadFollowing] = [:]
    private var pump: Task<Void, Never>?
    /// Each chat's notification level, read from the chat list once signed in
    /// (Shell+Notify.swift).
    var notifyLevels: [ChatID: NotifyLevel]?
    /// The bot plugins, started by the first `/plugin load`.
    var bots: BotHost?

    var output: Output { settings.output }
    var tokenizer: Tokenizer { Tokenizer(environment: settings.environment) }

    public init(service: any ChatService, settings: Settings) {
        self.service = service
        self.settings = settings
    }

    /// Starts listening to events and signs back in with the saved session, if any.
    public func start(eventSink: (@Sendable (ChatEvent, Viewer) -> Void)?) async {
        self.eventSink = eventSink
        completions.setDirectory { [weak self] sigil, prefix in await self?.directoryNames(sigil, prefix) ?? [] }
        let events = service.events
        let inbox = inbox
        pump = Task { [weak self] in
            for await event in events {
                inbox.receive(event)
                await self?.deliver(event)
            }
        }
        // Read before signing back in, which starts with no current chat.
        let saved = settings.interactive ? CurrentChatFile(folder: settings.dataFolder).load() : nil
        await resumeSaved()
        if let saved, let me, saved.user == me.id, let target = try? await target(saved.label) {
            try? await makeCurrent(target)
        }
    }

    /// Signs back in with the saved token; forgets it only when the service refuses it.
    func resumeSaved() async {
        guard let token = SessionFile(folder: settings.dataFolder).load() else { return }
        do {
            await adopt(try await service.resume(token: token), save: false)
        } catch let error as ParleyError where error.code == .invalidToken {
            SessionFile(folder: settings.dataFolder).remove()
        } catch let error as ParleyError {
            output.note("not signed back in: \(error.message)")
        } catch {
            output.note("not signed back in: \(error)")
        }
    }

    /// Switches to another service (`/connect`): the old one is closed, events now come
    /// from the new one, and its saved session is resumed.
    func replaceService(with link: ServiceLink) async {
        pump?.cancel()
        await stopPlugins()
        await self.service.close()
        self.service = link.service
        settings.dataFolder = link.folder
        settings.modeDescription = link.description
        settings.httpURL = link.httpURL
        settings.anotherConnection = link.another
        me = nil
        current = nil
        await start(eventSink: eventSink)
    }

    public func stop() async {
        pump?.cancel()
        await stopPlugins()
        await service.close()
    }

    private func deliver(_ event: ChatEvent) async {
        refreshCompletions(after: event)
        settings.logs?.record(event, me: me?.id)
        var alert = false
        // A thread's message reaches the screen if the thread is followed or shown.
        var shown = true
        if case .message(let data) = event, data.message.sender.id != me?.id {
            let level = await notifyLevel(of: data.chat.id)
            shown = await reachesLive(data)
            alert = shown && rings(data, level: level)
            noteTyping(stoppedBy: data.message.sender.handle, in: data.chat.id)
            if shown { noteHot(data, level: level) }
        }
        if case .typing(let typing) = event, typing.user.id != me?.id { noteTyping(typing.user.handle, in: typing.chatID) }
        // A reminder is for this user alone: it rings like a mention.
        if case .reminder = event { alert = true }
        if case .notifyChanged(let change) = event { await noteNotify(change.level, for: change.chatID) }
        if shown { eventSink?(event, Viewer(me: me?.id, handle: me?.handle, alert: alert)) }
        // A message shown in the chat the user is looking at on a terminal has been
        // read; a script marks what it has read with /read. Not awaited: the next
        // event is shown without waiting for the server (markers never move back).
        if settings.interactive, case .message(let data) = event, data.message.sender.id != me?.id, isCurrent(data) {
            let service = service
            if let root = data.message.thread, !data.message.alsoToChat {
                Task { _ = try? await service.markThreadRead(chat: data.chat.id, root: root, upTo: data.message.seq) }
            } else {
                Task { _ = try? await service.markRead(chat: data.chat.id, upTo: data.message.seq) }
            }
        }
        if settings.preview, case .message(let data) = event, let media = data.message.media {
            let lines = await previewLines(media)
            if !lines.isEmpty { settings.announce?(lines.joined(separator: "\n")) }
        }
    }

    /// Whether a message gets the user's attention, as its chat's level says: every
    /// message, mentions only, nothing; by default mentions and direct messages from
    /// another chat than the current one.
    func rings(_ data: MessageEvent, level: NotifyLevel?) -> Bool {
        let mentioned = me.map { data.message.mentions($0.handle) } == true
        switch level {
        case .nothing?: return false
        case .mentions?: return mentioned
        case .all?: return !isCurrent(data.chat) || mentioned
        case nil: return mentioned || (data.chat.kind == .direct && !isCurrent(data.chat))
        }
    }

    /// Whether a message is in what the user is looking at: its chat's main flow, or its
    /// thread (a thread's message that went to the chat too is in both).
    func isCurrent(_ data: MessageEvent) -> Bool {
        guard isCurrent(data.chat) else { return false }
        let shown = current?.thread
        guard let root = data.message.thread else { return shown == nil }
        return shown == root || (data.message.alsoToChat && shown == nil)
    }

    func isCurrent(_ chat: Chat) -> Bool {
        guard let current else { return false }
        if let shown = current.chat { return shown.id == chat.id }
        guard let peer = current.peer, chat.kind == .direct else { return false }
        return chat.participants.contains { $0.id == peer.id }
    }

    /// The server ended the session (signed out elsewhere, suspended, banned): the shell
    /// is signed out, and its prompt says so.
    public func sessionEnded() {
        me = nil
        current = nil
    }

    /// `parley> ` signed out; `alice #swift> ` or `alice @bob> ` after.
    public var prompt: String {
        guard let me else { return "parley> " }
        let place = current.map { " " + $0.label } ?? ""
        return "\(Sanitizer.line(me.handle))\(place)> "
    }

    /// Runs one line. Errors are `ParleyError`s with a stable code.
    public func execute(_ line: String, hereDocument: String? = nil) async throws -> Outcome {
        let trimmed = line.trimmingSpaces()
        if trimmed.isEmpty && hereDocument == nil { return .proceed }
        do {
            guard let (name, rest) = Self.split(trimmed) else {
                var input = CommandInput(Self.plainText(trimmed), tokenizer: tokenizer, hereDocument: hereDocument)
                try await sendText(to: nil, input.text())
                return .proceed
            }
            guard let command = CommandTable.command(named: String(name)) else {
                if try await invokePluginCommand(String(name), arguments: String(rest)) { return .proceed }
                let hint = CommandTable.suggestion(for: String(name)).map { " (did you mean /\($0)?)" } ?? "; /help lists them"
                let shown = name.count > 40 ? name.prefix(40) + "…" : name
                throw ParleyError(.unknownCommand, "unknown command /\(shown)\(hint)")
            }
            var input = CommandInput(String(rest), tokenizer: tokenizer, hereDocument: hereDocument)
            return try await run(command, &input)
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError(.internalError, "\(error)")
        }
    }

    /// A command line's name and the rest after it; nil for a line of text to send.
    nonisolated static func split(_ line: String) -> (name: Substring, rest: Substring)? {
        guard line.hasPrefix("/"), !line.hasPrefix("//") else { return nil }
        let name = line.dropFirst().prefix { $0 != " " && $0 != "\t" }
        return (name, line[name.endIndex...])
    }

    /// The text a line without a command sends: `//text` sends `/text`.
    nonisolated static func plainText(_ line: String) -> String {
        line.hasPrefix("//") ? String(line.dropFirst()) : line
    }

    /// Called after sign-in: remembers the user, saves the token, refreshes completion.
    func adopt(_ signedIn: SignedIn, save: Bool) async {
        me = signedIn.user
        current = nil
        if save {
            do {
                try SessionFile(folder: settings.dataFolder).save(signedIn.token)
            } catch {
                output.note("signed in, but the session could not be saved for next time: \(error.message)")
            }
        }
        await refreshCompletions()
    }

    /// Makes a connection that is already signed in usable by commands (a bot's shell).
    public func attach(signedInAs user: User) {
        me = user
    }

    func requireMe() throws -> User {
        guard let me else { throw ParleyError(.notSignedIn, "sign in first (/login or /register)") }
        return me
    }
}

/// A connection to an engine or a server, as the shell uses it.
public struct ServiceLink: Sendable {
    public var service: any ChatService
    /// Where this connection's session (and a client's outbox) is kept.
    public var folder: URL
    /// How `/status` describes it.
    public var description: String
    /// Opens another connection to the same place, for a bot plugin.
    public var another: @Sendable (String) async throws -> any ChatService
    /// The server's HTTP address (`http://HOST:PORT`), for URLs it serves; nil embedded.
    public var httpURL: String?

    public init(
        service: any ChatService, folder: URL, description: String, httpURL: String? = nil,
        another: @escaping @Sendable (String) async throws -> any ChatService
    ) {
        self.service = service
        self.folder = folder
        self.description = description
        self.httpURL = httpURL
        self.another = another
    }
}
