import Foundation
import ParleyBots
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// The plugin host with real plugin processes on a real engine.
@Suite(.timeLimit(.minutes(10)))
struct PluginHostTests {
    @Test func echoRoundTrip() async throws {
        let bots = try await BotWorld()
        let echo = BotWorld.repository.appendingPathComponent("plugins/echo.py").path
        let info = try await bots.host.load(path: echo, arguments: [], as: "echo", name: nil)
        #expect(info.name == "echo" && info.user == "echo")
        let account = try await bots.alice.user(handle: "echo")
        #expect(account.isBot && account.owner == "alice", "the account was made by the signed-in user, who owns it")
        #expect(try await bots.alice.bots().map(\.handle) == ["echo"])
        let group = try await bots.group("room", bots: ["echo"])
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "hello there", clientID: nil)
        let reply = await bots.aliceEvents.first {
            if case .message(let event) = $0 { return event.message.text == "echo: hello there" }
            return false
        }
        guard case .message(let event)? = reply else {
            Issue.record("no echo")
            return
        }
        #expect(event.message.sender.handle == "echo")
        #expect(event.message.sender.isBot, "a bot account's messages are marked as a bot's")
        await bots.shutdown()
    }

    @Test func aBotDoesNotSeeItsOwnMessages() async throws {
        let bots = try await BotWorld()
        let (_, record) = try await bots.load("record", as: "watcher")
        let group = try await bots.group("room", bots: ["watcher"])
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "one", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "seen: one" } })
        // The bot takes events in order: once it has answered "two", it has been handed
        // everything before it, its own reply to "one" included if it were to see it.
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "two", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "seen: two" } })
        let seen = bots.recorded(record).filter { $0["type"] == .string("message") }.compactMap { $0["message"]?["text"]?.string }
        #expect(seen == ["one", "two"], "the bot saw only alice's messages, not its own replies")
        #expect(try await bots.messages(in: group.id).filter { $0.text.hasPrefix("seen:") }.count == 2)
        await bots.shutdown()
    }

    @Test func twoEchoBotsInOneGroupDoNotLoop() async throws {
        let bots = try await BotWorld()
        let echo = BotWorld.repository.appendingPathComponent("plugins/echo.py").path
        _ = try await bots.host.load(path: echo, arguments: [], as: "echo1", name: "echo1")
        _ = try await bots.host.load(path: echo, arguments: [], as: "echo2", name: "echo2")
        let group = try await bots.group("room", bots: ["echo1", "echo2"])
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "ping", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: group.id).count >= 3 })
        // Each bot takes events in order: once both have answered a later message, an
        // answer to the other bot's echo would have come before.
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "later", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: group.id).filter { $0.text == "echo: later" }.count == 2 })
        let texts = try await bots.messages(in: group.id).map(\.text)
        #expect(
            texts.sorted() == ["echo: later", "echo: later", "echo: ping", "echo: ping", "later", "ping"],
            "each bot answered alice once and ignored the other bot")
        await bots.shutdown()
    }

    /// A 14-line answer (past the burst of 10) all lands, in order, paced at the rate
    /// limit: lines past the limit wait their turn instead of being dropped.
    @Test func linesPastTheBurstWaitTheirTurnAndAllLand() async throws {
        let bots = try await BotWorld()
        let (_, record) = try await bots.load("spam", "14", as: "spammer")
        let group = try await bots.group("room", bots: ["spammer"])
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "go", clientID: nil)
        #expect(await eventually { bots.recorded(record).filter { $0["ref"] != nil }.count >= 14 })
        #expect(bots.recorded(record).allSatisfy { $0["code"] == nil }, "no line was refused")
        let spam = try await bots.messages(in: group.id).map(\.text).filter { $0.hasPrefix("spam") }
        #expect(spam == (0..<14).map { "spam \($0)" })
        await bots.shutdown()
    }

    /// Past the backlog of waiting lines, a line is dropped and the plugin is told, with
    /// the line's ref; the lines kept all land, in order.
    @Test func linesPastTheBacklogAreRefusedWithTheirRef() async throws {
        let bots = try await BotWorld {
            $0.actionsPerSecond = 1
            $0.burst = 1
            $0.actionBacklog = 3
        }
        let (_, record) = try await bots.load("spam", "12", as: "spammer")
        let group = try await bots.group("room", bots: ["spammer"])
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "go", clientID: nil)
        #expect(await eventually { bots.recorded(record).filter { $0["ref"] != nil }.count >= 12 })
        let answers = bots.recorded(record).filter { $0["ref"] != nil }
        let refused = answers.filter { $0["code"] == .string("rate_limited") }
        let sent = answers.filter { $0["type"] == .string("result") }
        #expect(sent.count >= 3 && !refused.isEmpty && sent.count + refused.count == 12)
        let spam = try await bots.messages(in: group.id).map(\.text).filter { $0.hasPrefix("spam") }
        #expect(spam == sent.compactMap { if case .number(let ref)? = $0["ref"] { "spam \(Int(ref))" } else { nil } })
        await bots.shutdown()
    }

    @Test func aCrashingPluginIsRestartedThenLeftStoppedWithItsStderr() async throws {
        let bots = try await BotWorld()
        _ = try await bots.load("crash", as: "crashy")
        #expect(await eventually(timeout: .seconds(120)) { await bots.host.list().first?.state.hasPrefix("failed") == true })
        let info = try #require(await bots.host.list().first)
        #expect(info.restarts == 5)
        #expect(info.pid == nil)
        let stopped = bots.notes.all.first { $0.contains("left stopped") }
        #expect(stopped?.contains("boom from pid") == true, "the last stderr lines are shown")
        #expect(bots.notes.all.filter { $0.contains("restarting in") }.count == 5)
        await bots.shutdown()
    }

    @Test func junkOutputGetsErrorEvents() async throws {
        let bots = try await BotWorld()
        let (_, record) = try await bots.load("junk", as: "junky")
        #expect(await eventually { bots.recorded(record).filter { $0["code"] == .string("bad_line") }.count >= 3 })
        let errors = bots.recorded(record).filter { $0["code"] == .string("bad_line") }
        let lines = errors.compactMap { $0["line"]?.string }
        #expect(lines.contains("this is not an action"))
        #expect(errors.contains { $0["ref"] == .number(7) }, "an error keeps the ref of the line it answers")
        #expect(await bots.host.list().first?.state == "running", "junk does not stop a plugin")
        await bots.shutdown()
    }

    @Test func aSlowPluginLosesItsOldestEventsAndHoldsUpNoOne() async throws {
        let bots = try await BotWorld { $0.queueCapacity = 20 }
        _ = try await bots.load("sleeper", as: "sleepy")
        let group = try await bots.group("room", bots: ["sleepy"])
        for index in 1...500 {
            _ = try await bots.alice.sendMessage(
                to: .chat(group.id), text: "message \(index) " + String(repeating: "x", count: 200), clientID: nil)
        }
        #expect(try await bots.messages(in: group.id).count == 500)
        let info = try #require(await bots.host.list().first)
        #expect(info.state == "running")
        #expect(await eventually { await bots.host.list().first.map { $0.dropped > 0 } == true }, "the oldest events were dropped")
        await bots.shutdown()
    }

    @Test func unloadLeavesNoProcessOfThePlugin() async throws {
        let bots = try await BotWorld()
        let (info, record) = try await bots.load("forker", as: "forky")
        #expect(await eventually { !bots.recorded(record).isEmpty })
        let started = try #require(bots.recorded(record).first)
        guard case .number(let child)? = started["child"], case .number(let parent)? = started["pid"] else {
            Issue.record("no pids recorded")
            return
        }
        #expect(Int32(parent) == info.pid)
        #expect(processExists(Int32(child)) && processExists(Int32(parent)))
        try await bots.host.unload("forker")
        #expect(await eventually { !processExists(Int32(child)) && !processExists(Int32(parent)) })
        #expect(await bots.host.list().isEmpty)
        await bots.shutdown()
    }

    @Test func reloadKeepsTheOldProcessWhenTheNewOneFails() async throws {
        // Each script here says hello or exits: a reload waits for one or the other. (With
        // the world's 300 ms, a loaded machine let the broken script count as running.)
        let bots = try await BotWorld { $0.helloWait = .seconds(120) }
        let script = bots.folder.appendingPathComponent("swap.sh")
        func write(_ body: String) throws {
            try ("#!/bin/sh\n" + body).write(to: script, atomically: true, encoding: .utf8)
            chmod(script.path, 0o755)
        }
        try write("echo '{\"type\":\"hello\",\"name\":\"swap\"}'\ncat > /dev/null\n")
        let first = try await bots.host.load(path: script.path, arguments: [], as: "swapper", name: nil)
        try write("echo 'broken on purpose' >&2\nexit 2\n")
        await #expect(throws: ParleyError.self) { _ = try await bots.host.reload("swap") }
        let kept = try #require(await bots.host.list().first)
        #expect(kept.pid == first.pid && kept.state == "running", "the old process still runs")
        let error = await #expect(throws: ParleyError.self) { _ = try await bots.host.reload("swap") }
        #expect(error?.message.contains("broken on purpose") == true)
        try write("echo '{\"type\":\"hello\",\"name\":\"swap\"}'\ncat > /dev/null\n")
        let second = try await bots.host.reload("swap")
        #expect(second.pid != first.pid && second.state == "running")
        #expect(await eventually { !processExists(first.pid!) }, "the old process was stopped once the new one ran")
        await bots.shutdown()
    }

    @Test func stateAndCursorsSurviveARestartOfTheBot() async throws {
        let bots = try await BotWorld()
        _ = try await bots.load("counter", as: "counter")
        let group = try await bots.group("room", bots: ["counter"])
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "a", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "count 1" } })
        try await bots.host.unload("counter")

        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "b", clientID: nil)
        let (_, record) = try await bots.load("counter", as: "counter")
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "count 2" } }, "the count was kept")
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "c", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "count 3" } })
        let handed = bots.recorded(record).filter { $0["type"] == .string("message") }.compactMap { $0["message"]?["text"]?.string }
        #expect(handed == ["b", "c"], "after a restart the bot gets what it missed, not what it already handled")
        let caughtUp = bots.recorded(record).filter { $0["type"] == .string("message") }.map { $0["catch_up"] }
        #expect(caughtUp == [.bool(true), nil], "what it missed is marked as such")
        await bots.shutdown()
    }

    /// The sh and Perl bots of docs/plugins.md, copied from the page as written, answer
    /// in the chat they are asked in; the page shows the files in plugins/ unchanged.
    @Test func theDocumentedShAndPerlBotsWorkAsWritten() async throws {
        let page = try String(contentsOf: BotWorld.repository.appendingPathComponent("docs/plugins.md"), encoding: .utf8)
        func block(_ language: String) throws -> String {
            let start = try #require(page.range(of: "```\(language)\n"))
            let end = try #require(page.range(of: "```", range: start.upperBound..<page.endIndex))
            return String(page[start.upperBound..<end.lowerBound])
        }
        let bots = try await BotWorld()
        for (language, file, handle) in [("sh", "ping.sh", "pinger"), ("perl", "roll.pl", "roller")] {
            let text = try block(language)
            let shipped = try String(contentsOf: BotWorld.repository.appendingPathComponent("plugins/\(file)"), encoding: .utf8)
            #expect(text == shipped, "docs/plugins.md shows plugins/\(file) as it is")
            let script = bots.folder.appendingPathComponent(file)
            try text.write(to: script, atomically: true, encoding: .utf8)
            chmod(script.path, 0o755)
            _ = try await bots.host.load(path: script.path, arguments: [], as: handle, name: nil)
        }
        let first = try await bots.group("first", bots: ["pinger", "roller"])
        let second = try await bots.group("second", bots: ["pinger", "roller"])
        _ = try await bots.alice.sendMessage(to: .chat(first.id), text: "!ping", clientID: nil)
        _ = try await bots.alice.sendMessage(to: .chat(second.id), text: "!roll", clientID: nil)
        _ = try await bots.alice.sendMessage(to: .chat(second.id), text: "!help", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: second.id).filter { $0.sender.isBot }.count >= 3 })
        #expect(try await eventually { try await bots.messages(in: first.id).contains { $0.text == "pong" } })
        let answers = try await bots.messages(in: second.id).filter { $0.sender.isBot }.map(\.text)
        #expect(answers.contains { $0.wholeMatch(of: /rolled [1-6]/) != nil }, "\(answers)")
        #expect(answers.contains("I answer !ping and !date") && answers.contains("I answer !roll"))
        #expect(try await bots.messages(in: first.id).map(\.text) == ["!ping", "pong"])
        await bots.shutdown()
    }

    /// A reply without a chat goes to the chat of the message it answers, even when a
    /// message from another chat arrives while the plugin works on it.
    @Test func aReplyWithoutAChatGoesToTheChatItAnswers() async throws {
        let bots = try await BotWorld { $0.replyWait = .seconds(600) }
        _ = try await bots.load("slow", as: "slowpoke")
        let first = try await bots.group("first", bots: ["slowpoke"])
        let second = try await bots.group("second", bots: ["slowpoke"])
        _ = try await bots.alice.sendMessage(to: .chat(first.id), text: "one", clientID: nil)
        _ = try await bots.alice.sendMessage(to: .chat(second.id), text: "two", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: second.id).contains { $0.text.hasPrefix("seen:") } })
        let firstTexts = try await bots.messages(in: first.id).map(\.text)
        let secondTexts = try await bots.messages(in: second.id).map(\.text)
        #expect(firstTexts == ["one", "seen: one"])
        #expect(secondTexts == ["two", "seen: two"])
        await bots.shutdown()
    }

    /// A hello with an unknown event and a bad command still applies: the plugin gets
    /// the events it named rightly and its good command, and is told what was wrong.
    @Test func aHelloWithUnknownPartsAppliesTheRestAndSaysWhatWasWrong() async throws {
        let bots = try await BotWorld()
        let script = bots.folder.appendingPathComponent("partial.sh")
        let record = bots.folder.appendingPathComponent("partial.jsonl")
        let hello = #"{"type":"hello","events":["message","typing"],"commands":[{"name":"ok"},{"name":"Not OK"}]}"#
        try "#!/bin/sh\necho '\(hello)'\ncat > '\(record.path)'\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        _ = try await bots.host.load(path: script.path, arguments: [], as: "partial", name: nil)
        let group = try await bots.group("room", bots: ["partial"])
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "still heard", clientID: nil)
        #expect(await eventually { bots.recorded(record).contains { $0["message"]?["text"] == .string("still heard") } })
        let complaint = try #require(bots.recorded(record).first { $0["code"] == .string("bad_hello") })
        #expect(complaint["message"]?.string?.contains("\"typing\"") == true)
        #expect(complaint["problems"].map { if case .array(let items) = $0 { items.count } else { 0 } } == 2)
        #expect(await bots.host.list().first?.commands == ["ok"])
        await bots.shutdown()
    }

    @Test func declaredCommandsReachThePlugin() async throws {
        let bots = try await BotWorld()
        _ = try await bots.load("commands", as: "shouter")
        #expect(await eventually { await bots.host.list().first?.commands == ["shout"] })
        #expect(bots.host.declared.command(named: "shout")?.usage == "/shout TEXT")
        let group = try await bots.group("room", bots: ["shouter"])
        #expect(await bots.host.invoke(command: "shout", arguments: "hello", chat: group, user: bots.aliceUser.ref))
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "HELLO!" } })
        try await bots.host.unload("commands")
        #expect(bots.host.declared.command(named: "shout") == nil)
        await bots.shutdown()
    }

    @Test func withoutAsTheBotActsAsTheSignedInUser() async throws {
        let bots = try await BotWorld()
        let bob = try await bots.world.signUp("bob")
        let (info, _) = try await bots.load("nohello", as: nil, name: "responder")
        #expect(info.user == "alice")
        _ = try await bob.sendMessage(to: .user(bots.aliceUser.id), text: "are you there?", clientID: nil)
        let direct = try #require(try await bob.directChat(with: bots.aliceUser.id))
        #expect(
            try await eventually {
                try await bob.history(chat: direct.id, limit: 10, before: nil).contains {
                    $0.text == "seen: are you there?" && $0.sender.handle == "alice"
                }
            })
        await bots.shutdown()
    }

    @Test func aSwiftBotRunsInProcessWithTheSameGuards() async throws {
        struct Greeter: Bot {
            var hello: BotHello { BotHello(name: "greeter", events: ["member_joined", "message"]) }
            func handle(_ event: BotEvent, context: BotContext) async {
                switch event {
                case .memberJoined(let change):
                    _ = try? await context.send(to: String(change.chat.id.rawValue), "welcome, \(change.user.displayName)!")
                case .message(let message):
                    _ = try? await context.reply(to: message, "heard \(message.message.text)")
                default: break
                }
            }
        }
        let bots = try await BotWorld()
        _ = try await bots.host.load(bot: Greeter(), as: "greeter")
        let group = try await bots.group("room", bots: ["greeter"])
        let bob = try await bots.world.signUp("bob")
        _ = try await bob.joinGroup(handle: "room")
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "welcome, Bob!" } })
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "hi", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "heard hi" } })
        _ = try await bots.alice.sendMessage(to: .chat(group.id), text: "again", clientID: nil)
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "heard again" } })
        #expect(try await bots.messages(in: group.id).filter { $0.text.hasPrefix("heard") }.count == 2, "it did not answer itself")
        await bots.shutdown()
    }
}

/// What a plugin sees of mentions, edits and deletions, and how it replies and reacts.
@Suite(.timeLimit(.minutes(10)))
struct PluginConversationTests {
    @Test func aBotHearsMentionsRepliesReactsAndSeesEditsAndDeletions() async throws {
        let bots = try await BotWorld()
        let (_, record) = try await bots.load("conversation", as: "helper")
        let group = try await bots.group("room", bots: ["helper"])
        let plain = try await bots.alice.sendMessage(to: .chat(group.id), text: "hello room", clientID: nil)
        let asked = try await bots.alice.sendMessage(to: .chat(group.id), text: "@helper what time is it?", clientID: nil)
        // The answer quotes the question, and the question gets a wave.
        #expect(
            try await eventually {
                let history = try await bots.messages(in: group.id)
                return history.contains { $0.text == "you called?" } && history.first { $0.seq == asked.seq }?.reactions.isEmpty == false
            })
        let history = try await bots.messages(in: group.id)
        let answer = try #require(history.first { $0.text == "you called?" })
        #expect(answer.sender.handle == "helper" && answer.replyTo?.seq == asked.seq && answer.replyTo?.sender.handle == "alice")
        #expect(history.first { $0.seq == asked.seq }?.reactions == [ReactionCount(emoji: "👋", count: 1)])

        _ = try await bots.alice.editMessage(chat: group.id, seq: asked.seq, text: "@helper what day is it?")
        #expect(try await eventually { try await bots.messages(in: group.id).contains { $0.text == "saw the edit" } })
        let noticed = try #require(try await bots.messages(in: group.id).first { $0.text == "saw the edit" })
        #expect(noticed.replyTo?.seq == asked.seq && noticed.replyTo?.text == "@helper what day is it?")
        _ = try await bots.alice.deleteMessage(chat: group.id, seq: plain.seq)
        #expect(
            await eventually {
                bots.recorded(record).contains { $0["type"] == .string("message_deleted") }
            })

        let seen = bots.recorded(record)
        let messages = seen.filter { $0["type"] == .string("message") }
        let plainSeen = try #require(messages.first { $0["message"]?["seq"] == .number(Double(plain.seq)) })
        #expect(plainSeen["mentioned_me"] == .bool(false) && plainSeen["message"]?["mentions"] == nil)
        let askedSeen = try #require(messages.first { $0["message"]?["seq"] == .number(Double(asked.seq)) })
        #expect(askedSeen["mentioned_me"] == .bool(true))
        #expect(askedSeen["message"]?["mentions"] == .array([.string("helper")]))
        let edited = try #require(seen.first { $0["type"] == .string("message_edited") })
        #expect(edited["message"]?["text"] == .string("@helper what day is it?") && edited["message"]?["edited_at"] != nil)
        let deleted = try #require(seen.first { $0["type"] == .string("message_deleted") })
        #expect(deleted["message"]?["seq"] == .number(Double(plain.seq)) && deleted["message"]?["text"] == .string(""))
        #expect(seen.contains { $0["type"] == .string("reaction_changed") } == false, "its own reaction is not told back to it")
        await bots.shutdown()
    }

    @Test func badReplyAndReactLinesGetTheirErrors() async throws {
        let bots = try await BotWorld()
        let (_, record) = try await bots.load("conversation", as: "helper")
        // On `ready` the plugin writes six bad lines, refs 1 to 6 (testbot.py).
        #expect(await eventually { bots.recorded(record).filter { $0["type"] == .string("error") }.count >= 6 })
        let errors = bots.recorded(record).filter { $0["type"] == .string("error") }
        let refs = errors.compactMap { error -> Double? in if case .number(let ref)? = error["ref"] { ref } else { nil } }
        #expect(refs.sorted() == [1, 2, 3, 4, 5, 6])
        #expect(errors.allSatisfy { $0["code"] == .string("bad_line") })
        await bots.shutdown()
    }
}
