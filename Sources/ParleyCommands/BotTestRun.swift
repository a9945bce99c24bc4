import Foundation
public import ParleyBots
import ParleyCore
import ParleyEngine
import ParleySQLite
import ParleyShell
import Synchronization

/// One transcript run: a throwaway data folder, its people signed in, the plugin loaded
/// as the bot on a hand-moved clock, the steps taken in order.
struct BotTestRun {
    let plugin: String
    let transcript: BotTranscript

    func run() async throws -> BotTestReport {
        let started = ContinuousClock.now
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bot-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Throwaway accounts: the cheapest password hashing, and no codes to show.
        let (engine, store) = try DataFolderEngine.open(folder: folder, access: .embedded) { $0.bcryptCost = 4 }
        defer { try? store.close() }
        let connect: @Sendable (String) async throws -> any ChatService = { _ in engine.connect() }
        let stderr = Mutex<[String]>([])
        let clock = ManualBotClock(start: transcript.clockStart ?? Date())

        // The people, each with a connection of their own whose events show the bot's answers.
        var people: [String: (service: any ChatService, user: User)] = [:]
        for handle in transcript.people {
            let service = try await connect(handle)
            let password = UUID().uuidString
            let signedIn = try await service.register(
                Registration(email: "\(handle)@bot-test.invalid", password: password, displayName: handle.capitalized, handle: handle))
            people[handle] = (service, signedIn.user)
        }
        let answers = BotAnswers()
        var watchers: [Task<Void, Never>] = []
        for (_, person) in people {
            let events = person.service.events
            watchers.append(Task { for await event in events { if case .message(let message) = event { await answers.add(message) } } })
        }
        defer { for watcher in watchers { watcher.cancel() } }

        var groups: [String: ChatID] = [:]
        for group in transcript.groups {
            guard let owner = group.members.first(where: { $0.role == .owner }), let ownerSide = people[owner.handle] else { continue }
            let chat = try await ownerSide.service.createGroup(handle: group.handle, title: nil, isPublic: group.isPublic)
            groups[group.handle] = chat.id
            for member in group.members where member.role != .owner {
                guard let user = people[member.handle]?.user else { continue }
                try await ownerSide.service.invite(user: user.id, to: chat.id)
                if member.role != .member { try await ownerSide.service.setRole(member.role, for: user.id, in: chat.id) }
            }
        }

        // The bot: made and owned by the first person, in every group.
        guard let first = transcript.people.first, let owner = people[first] else { throw ParleyError(.invalidArgument, "no people") }
        var runtime = Shell.botRuntime(
            folder: folder, state: try BotStateStore(in: folder), connect: connect, userToken: { nil },
            log: { _, line in stderr.withLock { $0.append(line) } }, notify: { line in stderr.withLock { $0.append(line) } })
        runtime.owner = { owner.service }
        runtime.clock = clock
        runtime.limits.helloWait = .seconds(3)
        let host = BotHost(runtime: runtime)
        let handle = transcript.bot ?? Self.handle(for: plugin)
        let info = try await host.load(path: plugin, arguments: [], as: handle, name: nil)
        let bot = try await owner.service.user(handle: "@" + info.user)
        await answers.only(from: bot.id)
        for group in transcript.groups {
            guard let chat = groups[group.handle], let ownerHandle = group.members.first(where: { $0.role == .owner })?.handle,
                let side = people[ownerHandle]
            else { continue }
            try await side.service.invite(user: bot.id, to: chat)
        }

        var report = BotTestReport()
        var lastSaid: String?
        // Each group's last line said in its own flow, and the thread lines go to now.
        var lastInGroup: [String: Int64] = [:]
        var thread: Int64?
        for step in transcript.steps {
            switch step {
            case .say(let line, let who, let place, let text):
                guard let person = people[who] else { continue }
                lastSaid = "\(who)> \(text)"
                do {
                    switch place {
                    case .group(let name, let root?):
                        let chat = groups[name] ?? ChatID(0)
                        let seq = root == 0 ? lastInGroup[name] ?? 0 : root
                        let sent = try await person.service.sendToThread(
                            chat: chat, seq: seq, text: text, clientID: nil, via: nil, alsoToChat: false)
                        thread = sent.thread
                    case .group(let name, nil):
                        lastInGroup[name] = try await person.service.sendMessage(
                            to: .chat(groups[name] ?? ChatID(0)), text: text, clientID: nil
                        ).seq
                        thread = nil
                    case .direct:
                        _ = try await person.service.sendMessage(to: .user(bot.id), text: text, clientID: nil)
                        thread = nil
                    }
                } catch {
                    report.failures.append(
                        .init(line: line, after: nil, expected: lastSaid, got: "(refused: \(ParleyError(error).message))", chat: nil))
                }
            case .expect(let line, let expected, let place, let timeout):
                report.answers += 1
                let answer = await answers.next(within: timeout)
                if let answer, expected.matches(answer.message.text), place == nil || place == Self.place(of: answer, thread: thread) {
                    continue
                }
                report.failures.append(
                    .init(
                        line: line, after: lastSaid, expected: expected.shown + (place.map { "    [\($0)]" } ?? ""),
                        got: answer.map { $0.message.text.replacingOccurrences(of: "\n", with: "\\n") },
                        chat: answer.map { Self.place(of: $0, thread: thread) }))
            case .membership(let line, let who, let group, let joins):
                lastSaid = "\(joins ? "join" : "leave") \(who)"
                guard let person = people[who], let chat = groups[group],
                    let ownerHandle = transcript.groups.first(where: { $0.handle == group })?.members.first(where: { $0.role == .owner })?
                        .handle,
                    let owner = people[ownerHandle]
                else { continue }
                do {
                    if joins {
                        try await owner.service.invite(user: person.user.id, to: chat)
                    } else {
                        try await person.service.leave(chat: chat)
                    }
                } catch {
                    report.failures.append(
                        .init(line: line, after: nil, expected: lastSaid, got: "(refused: \(ParleyError(error).message))", chat: nil))
                }
            case .wait(_, let seconds, let shown):
                lastSaid = "wait \(shown)"
                clock.advance(by: seconds)
            }
        }
        // Answers no line expected, among those already here.
        for extra in await answers.leftover() {
            report.failures.append(
                .init(
                    line: transcript.steps.count, after: "(after the last step)", expected: nil,
                    got: extra.message.text.replacingOccurrences(of: "\n", with: "\\n"), chat: Self.place(of: extra, thread: nil)))
        }
        await host.shutdown()
        try? runtime.state.close()
        for (_, person) in people { await person.service.close() }
        report.stderr = stderr.withLock { $0 }
        report.seconds = (ContinuousClock.now - started).seconds
        return report
    }

    /// A bot handle from a plugin's file name: `reminder.py` → `reminder`.
    static func handle(for plugin: String) -> String {
        let base = URL(fileURLWithPath: plugin).deletingPathExtension().lastPathComponent.lowercased()
        let cleaned = String(base.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(20))
        return cleaned.isEmpty || cleaned.first?.isNumber == true ? "bot_" + cleaned : cleaned
    }

    static func place(of chat: Chat) -> String {
        chat.kind == .group ? "#" + (chat.handle ?? "\(chat.id.rawValue)") : "direct"
    }

    /// Where an answer came: `thread` when in the thread lines are said in, else its
    /// chat (`#team thread 3` for another thread of it).
    static func place(of answer: MessageEvent, thread: Int64?) -> String {
        guard let root = answer.message.thread, !answer.message.alsoToChat else { return place(of: answer.chat) }
        return root == thread ? "thread" : place(of: answer.chat) + " thread \(root)"
    }
}

/// The bot's messages as they arrive, each once, taken in order.
actor BotAnswers {
    private var bot: UserID?
    private var early: [MessageEvent] = []
    private var arrived: [MessageEvent] = []
    private var seen = Set<MessageID>()

    func only(from bot: UserID) {
        self.bot = bot
        for message in early { add(message) }
        early = []
    }

    func add(_ event: MessageEvent) {
        guard let bot else {
            early.append(event)
            return
        }
        guard event.message.sender.id == bot, seen.insert(event.message.id).inserted else { return }
        arrived.append(event)
    }

    /// The next answer, waiting for it up to `timeout`.
    func next(within timeout: Duration) async -> MessageEvent? {
        let deadline = ContinuousClock.now + timeout
        while arrived.isEmpty, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return arrived.isEmpty ? nil : arrived.removeFirst()
    }

    func leftover() -> [MessageEvent] { arrived }
}

/// The bot host's state, kept in the data folder's `bots.sqlite`: `parley` says where.
extension BotStateStore: BotState {}
