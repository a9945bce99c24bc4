import Foundation
import ParleyBots
import ParleyCore
import ParleyEngine
import ParleySQLite
import ParleyTesting
import Testing

/// A Swift `Bot` keeps schedules the same way a plugin does: asked for with
/// `context.schedule`, handed back as `.tick` events on the host's clock, listed and
/// cancelled, and kept in the state store for the next host.
@Suite(.timeLimit(.minutes(10))) struct SwiftBotScheduleTests {
    /// Asks for a cron and a one-off when it starts; says each tick in #room; `!cancel` unschedules.
    struct Clockwork: Bot {
        var hello: BotHello { BotHello(name: "clockwork", events: ["message"]) }

        func handle(_ event: BotEvent, context: BotContext) async {
            switch event {
            case .ready:
                _ = try? await context.schedule("daily", .cron("0 9 * * *", timeZone: "Europe/Paris"), data: .string("coffee"))
                _ = try? await context.schedule("soon", .after(.seconds(30)))
            case .tick(let tick):
                _ = try? await context.send(to: "#room", "tick \(tick.name) \(tick.data?.string ?? "-") late=\(tick.late)")
            case .message(let message) where message.message.text == "!fill":
                var kept = 0
                var refusal = ""
                for index in 0...BotSchedule.maxPerBot {
                    do {
                        _ = try await context.schedule("f\(index)", .after(.seconds(1000)))
                        kept += 1
                    } catch {
                        refusal = ParleyError(error).message
                    }
                }
                _ = try? await context.reply(to: message, "kept \(kept); \(refusal)")
            case .message(let message) where message.message.text == "!cancel":
                try? await context.unschedule("daily")
                let left = await context.schedules().map(\.name)
                _ = try? await context.reply(to: message, "left: \(left)")
            default:
                break
            }
        }
    }

    @Test func aSwiftBotsSchedulesTickOnTheHostsClock() async throws {
        let clock = ManualBotClock(start: try #require(ISO8601DateFormatter().date(from: "2026-11-30T07:59:00Z")))
        let bots = try await BotWorld(clock: clock)
        _ = try await bots.host.load(bot: Clockwork(), as: "clockwork")
        let room = try await bots.group("room", bots: ["clockwork"])
        func said(_ text: String) async throws -> Bool {
            try await eventually { try await bots.messages(in: room.id).contains { $0.text == text } }
        }
        // Both kept before the clock moves (the one-off 30 s ahead, the cron at 08:00 UTC).
        #expect(try await eventually { (try bots.state.schedules(bot: "clockwork")).count == 2 })
        clock.advance(by: 30)
        #expect(try await said("tick soon - late=false"))
        clock.advance(by: 30)
        #expect(try await said("tick daily coffee late=false"))
        let next = try bots.state.schedules(bot: "clockwork").first { $0.name == "daily" }?.next
        #expect(next == ISO8601DateFormatter().date(from: "2026-12-01T08:00:00Z"), "the next day, 09:00 in Paris")
        _ = try await bots.alice.sendMessage(to: .chat(room.id), text: "!cancel", clientID: nil)
        #expect(try await said("left: []"))
        #expect(try bots.state.schedules(bot: "clockwork").isEmpty)
        // At most 100 a bot.
        _ = try await bots.alice.sendMessage(to: .chat(room.id), text: "!fill", clientID: nil)
        #expect(try await said("kept 100; a bot keeps at most 100 schedules (unschedule one first)"))
        await bots.shutdown()
    }
}
