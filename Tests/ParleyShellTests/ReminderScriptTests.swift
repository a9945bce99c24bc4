import Foundation
import ParleyTesting
import Testing

/// `/remind` against a server: a reminder set in a shell that then closes is told when
/// the user comes back, in the shell (in tmux) or on IRC; one due while the shell is
/// open rings there at once.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ReminderScriptTests {
    @Test func aReminderReachesAUserWhoseShellWasClosed() async throws {
        let world = try await ServedShells(["alice", "bob"])
        defer { world.remove() }
        let (server, alice, bob) = (world.server, world["alice"], world["bob"])
        let set = try await alice.run(
            """
            /register alice@example.com --handle alice --password wonderland-1
            /create #team
            /remind 2s stand-up
            /remind #team 3h lunch
            /reminders
            """)
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.lines.contains { $0.hasPrefix("Reminder 1 at ") && $0.hasSuffix(" (set in #team): stand-up") }, "\(set.lines)")
        #expect(set.lines.filter { $0.hasSuffix("#team  lunch") || $0.hasSuffix("#team  stand-up") }.count == 2, "\(set.lines)")
        let bobSet = try await bob.run("/register bob@example.com --handle bob --password builder-123\n/remind 2s check irc")
        #expect(bobSet.status == 0, "\(bobSet.stderr)")
        // Both shells are closed; the time passes.
        _ = await pause(.seconds(3))

        let terminal = TmuxSession()
        defer { terminal.stop() }
        try await terminal.start("NO_COLOR=1 \(ParleyBinary.executable.path) --data \(alice.data.path) --server \(server.url)")
        let screen = try await terminal.waitFor("⏰ reminder in #team, set ")
        #expect(screen.contains(": stand-up"), "\(screen)")
        _ = try await terminal.waitFor("alice>")
        try await terminal.type("/remind 1s tea", "Enter")
        let later = try await terminal.waitFor("⏰ reminder, set ")
        #expect(later.contains(": tea"), "\(later)")
        try await terminal.type("/reminders", "Enter")
        let list = try await terminal.waitFor("#team  lunch")
        #expect(!list.contains("  stand-up\n"), "\(list)")

        let irc = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await irc.signIn("bob", password: "builder-123"))
        #expect(await irc.wait(containing: " NOTICE bob :⏰ reminder, set at ") != nil)
    }
}
