import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Reports in the engine, on both stores: a member reports a message of their chat,
/// once; the server's operators read the queue and resolve; nobody else can.
@Suite(.timeLimit(.minutes(10))) struct ReportTests {
    @Test(arguments: StoreKind.all) func membersReportAndOperatorsResolve(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.admins = ["oscar"] }
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let eve = try await world.signUp("eve")
        let oscar = try await world.signUp("oscar")
        let group = try await alice.createGroup(handle: "team", title: nil, isPublic: false)
        try await alice.invite(user: try await bob.me().id, to: group.id)
        let spam = try await alice.sendMessage(to: .chat(group.id), text: "buy cheap watches", clientID: nil)

        let made = try await bob.report(chat: group.id, seq: spam.seq, reason: "  spam  ")
        #expect(made.place == "#team" && made.sender.handle == "alice" && made.reporter.handle == "bob")
        #expect(made.text == "buy cheap watches" && made.reason == "spam" && made.resolvedAt == nil)
        #expect(try await bob.report(chat: group.id, seq: spam.seq, reason: "again").id == made.id, "one open report a message")

        // Refusals change nothing.
        await expectError(.unknownChat) { _ = try await eve.report(chat: group.id, seq: spam.seq, reason: nil) }
        await expectError(.unknownMessage) { _ = try await bob.report(chat: group.id, seq: 99, reason: nil) }
        await expectError(.invalidArgument) { _ = try await bob.report(chat: group.id, seq: spam.seq, reason: "a\u{0}b") }
        await expectError(.invalidArgument) {
            _ = try await bob.report(chat: group.id, seq: spam.seq, reason: String(repeating: "x", count: 501))
        }
        for someone in [alice, bob, eve] {
            await expectError(.forbidden) { _ = try await someone.reports(includingResolved: false) }
            await expectError(.forbidden) { _ = try await someone.resolveReport(made.id, note: "mine") }
        }
        // A deleted message cannot be reported.
        let typo = try await alice.sendMessage(to: .chat(group.id), text: "oops", clientID: nil)
        _ = try await alice.deleteMessage(chat: group.id, seq: typo.seq)
        await expectError(.unknownMessage) { _ = try await bob.report(chat: group.id, seq: typo.seq, reason: nil) }

        #expect(try await oscar.reports(includingResolved: false).map(\.id) == [made.id])
        let resolved = try await oscar.resolveReport(made.id, note: "warned @alice")
        #expect(resolved.resolvedBy == "oscar" && resolved.note == "warned @alice" && resolved.resolvedAt != nil)
        await expectError(.unknownReport) { _ = try await oscar.resolveReport(made.id, note: nil) }
        #expect(try await oscar.reports(includingResolved: false).isEmpty)
        #expect(try await oscar.reports(includingResolved: true).map(\.id) == [made.id])
        // Once resolved, the same message may be reported anew.
        #expect(try await bob.report(chat: group.id, seq: spam.seq, reason: nil).id != made.id)
    }
}
