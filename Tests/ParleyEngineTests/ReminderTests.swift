import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Reminders in the engine, on both stores: set, listed, cancelled and bounded; told
/// when due to the user alone, once, or on their next sign-in if they were away.
@Suite(.timeLimit(.minutes(10))) struct ReminderTests {
    @Test(arguments: StoreKind.all) func remindersAreSetListedAndBounded(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let group = try await alice.createGroup(handle: "team", title: nil, isPublic: true)
        let vault = try await alice.createGroup(handle: "vault", title: nil, isPublic: false)
        let now = world.clock.now
        let standUp = try await alice.remind("stand-up", at: now.addingTimeInterval(600), in: group.id)
        #expect(standUp.place == "#team" && standUp.chatID == group.id)
        _ = try await alice.sendMessage(to: .user(try await bob.me().id), text: "hi", clientID: nil)
        let direct = try #require(try await alice.directChat(with: try await bob.me().id))
        let call = try await alice.remind("call bob", at: now.addingTimeInterval(60), in: direct.id)
        #expect(call.place == "@bob")
        let plain = try await alice.remind("  tea  ", at: now.addingTimeInterval(3600), in: nil)
        #expect(plain.text == "tea" && plain.place == nil)
        #expect(try await alice.reminders().map(\.text) == ["call bob", "stand-up", "tea"], "soonest first")
        #expect(try await bob.reminders().isEmpty, "each user sees their own")

        await expectError(.unknownChat) { _ = try await bob.remind("x", at: now.addingTimeInterval(60), in: vault.id) }
        await expectError(.invalidArgument) { _ = try await alice.remind("x", at: now.addingTimeInterval(-3600), in: nil) }
        await expectError(.invalidArgument) { _ = try await alice.remind("x", at: now.addingTimeInterval(367 * 86400), in: nil) }
        await expectError(.invalidArgument) { _ = try await alice.remind("x", at: Date.distantFuture, in: nil) }
        await expectError(.emptyText) { _ = try await alice.remind("   ", at: now.addingTimeInterval(60), in: nil) }
        await expectError(.invalidText) { _ = try await alice.remind("a\u{0}b", at: now.addingTimeInterval(60), in: nil) }
        await expectError(.textTooLong) {
            _ = try await alice.remind(String(repeating: "x", count: 501), at: now.addingTimeInterval(60), in: nil)
        }

        await expectError(.unknownReminder) { try await bob.cancelReminder(plain.id) }
        try await alice.cancelReminder(plain.id)
        await expectError(.unknownReminder) { try await alice.cancelReminder(plain.id) }
        #expect(try await alice.reminders().count == 2)
        for index in 0..<(Reminder.maxPending - 2) {
            _ = try await alice.remind("r\(index)", at: now.addingTimeInterval(7200), in: nil)
        }
        await expectError(.forbidden) { _ = try await alice.remind("one more", at: now.addingTimeInterval(60), in: nil) }
    }

    @Test(arguments: StoreKind.all) func aDueReminderIsToldOnceToItsUserOrOnTheirNextSignIn(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let aliceEvents = EventRecorder(alice)
        let bobEvents = EventRecorder(bob)
        let bobID = try await bob.me().id
        let now = world.clock.now
        _ = try await alice.remind("stand-up", at: now.addingTimeInterval(600), in: nil)
        _ = try await bob.remind("lunch", at: now.addingTimeInterval(900), in: nil)
        #expect(await world.engine.fireDueReminders() == 0, "nothing is due yet")
        world.clock.advance(by: .seconds(600))
        #expect(await world.engine.fireDueReminders() == 1)
        #expect(await world.engine.fireDueReminders() == 0, "a reminder fires once")
        let told = await aliceEvents.first { if case .reminder = $0 { true } else { false } }
        guard case .reminder(let reminder)? = told else {
            Issue.record("alice was not told")
            return
        }
        #expect(reminder.text == "stand-up" && reminder.firedAt == world.clock.now)
        #expect(try await alice.reminders().isEmpty)

        // Bob is away when his comes due: he is told when he signs in again, once.
        await bob.close()
        world.clock.advance(by: .seconds(300))
        #expect(await world.engine.fireDueReminders() == 1)
        #expect(!bobEvents.events.contains { if case .reminder = $0 { true } else { false } })
        let back = world.engine.connect()
        let backEvents = EventRecorder(back)
        _ = try await back.signIn(login: "@bob", password: TestWorld.password(of: "bob"))
        let missed = await backEvents.first { if case .reminder = $0 { true } else { false } }
        guard case .reminder(let lunch)? = missed else {
            Issue.record("bob was not told on his return")
            return
        }
        #expect(lunch.text == "lunch")
        // Alice saw only her own; a second sign-in of bob is told nothing again.
        #expect(aliceEvents.events.filter { if case .reminder = $0 { true } else { false } }.count == 1)
        let again = world.engine.connect()
        let againEvents = EventRecorder(again)
        _ = try await again.signIn(login: "@bob", password: TestWorld.password(of: "bob"))
        // An event that must come after anything told at sign-in.
        _ = try await alice.sendMessage(to: .user(bobID), text: "a later event", clientID: nil)
        let later = await againEvents.first { if case .message(let m) = $0 { m.message.text == "a later event" } else { false } }
        #expect(later != nil)
        #expect(!againEvents.events.contains { if case .reminder = $0 { true } else { false } })
    }
}
