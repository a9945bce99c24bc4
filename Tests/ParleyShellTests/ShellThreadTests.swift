import Foundation
import ParleyTesting
import Testing

/// Threads between two shells of one server, on both stores, through the binary: one
/// starts a thread and names it, the other answers in it by name (`#team/N`), lists the
/// chat's threads with its unread count, searches in the thread, and stops following it;
/// the main flow shows the thread as one line under its root.
@Suite(.timeLimit(.minutes(10))) struct ShellThreadTests {
    @Test(arguments: StoreKind.all) func twoShellsTalkInAThread(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice", "bob"], store: store)
        defer { world.remove() }
        let started = try await world["alice"].run(
            """
            /register alice@example.com --handle alice --password wonderland-1
            /create #team
            release on friday?
            /thread 1 release plan
            tests are green
            """)
        #expect(started.status == 0, "\(started.stderr)")
        #expect(started.stdout.contains("Now in #team/1 \"release plan\": 0 replies"), "\(started.stdout)")
        #expect(started.stdout.contains("#team/1 <alice> tests are green"), "\(started.stdout)")

        let answered = try await world["bob"].run(
            """
            /register bob@example.com --handle bob --password builder-123
            /join #team
            /threads #team
            /send #team/1 friday works, after the freeze
            /threads #team
            /search freeze in:#team/1
            /unfollow #team 1
            """)
        #expect(answered.status == 0, "\(answered.stderr)")
        #expect(answered.stdout.contains("#team/1 \"release plan\": 1 reply, 1 unread"), "\(answered.stdout)")
        #expect(answered.stdout.contains("#team/1 <bob> friday works, after the freeze"), "\(answered.stdout)")
        // Posting there read it, and followed it.
        #expect(answered.stdout.contains("#team/1 \"release plan\": 2 replies, last "), "\(answered.stdout)")
        #expect(
            answered.lines.contains { $0.hasPrefix("#team/1 \"release plan\": 2 replies") && $0.hasSuffix("following") },
            "\(answered.stdout)")
        #expect(
            answered.lines.contains { $0.contains(". [") && $0.hasSuffix("#team/1 <bob> friday works, after the freeze") },
            "\(answered.stdout)")
        #expect(answered.stdout.contains("No longer following #team/1"), "\(answered.stdout)")

        // The main flow: the root, its thread one line under it; the thread's own page.
        let main = try await world["alice"].run("/history #team\n/threads #team\n/history #team/1", arguments: ["--json"])
        #expect(main.status == 0, "\(main.stderr)")
        #expect(main.stdout.contains(#""thread_head":{"#), "\(main.stdout)")
        let plain = try await world["alice"].run("/history #team\n/threads #team\n/history #team/1")
        #expect(plain.stdout.contains("↳ 2 replies in \"release plan\" (thread 1), last "), "\(plain.stdout)")
        #expect(!plain.lines.contains { $0.contains(" #team <") && $0.hasSuffix("tests are green") }, "\(plain.stdout)")
        #expect(plain.stdout.contains("#team/1 \"release plan\": 2 replies, 1 unread"), "alice has not read bob's: \(plain.stdout)")
        #expect(plain.lines.contains { $0.hasSuffix("#team/1 <bob> friday works, after the freeze") }, "\(plain.stdout)")
    }
}
