import Foundation
import ParleyTesting
import Testing

/// The README's "On a server, with a friend", line by line: alice registers, makes
/// #swift and invites bob; bob registers, follows the README with `/join #swift` (he is
/// already in it, by the invitation) and says hello.
@Suite(.timeLimit(.minutes(10))) struct ReadmeWalkTests {
    @Test func theServerWalkWorksAsWritten() async throws {
        let alice = try await ParleyBinary(mode: .server)
        defer { alice.remove() }
        let bob = ParleyBinary(clientOf: alice)
        defer { bob.remove() }
        #expect(try await bob.run("/register bob@example.com --handle bob --password builder-123").status == 0)
        let made = try await alice.run(
            """
            /register alice@example.com --handle alice --name "Alice Liddell" --password wonderland-1
            /create #swift Swift on Linux
            /invite @bob
            """)
        #expect(made.status == 0, "\(made.stderr)")
        let followed = try await bob.run(
            """
            /join #swift
            hello everyone
            """)
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.lines.contains { $0.contains("You are already in #swift; talking there now") }, "\(followed.lines)")
        #expect(!followed.stderr.contains("error"), "\(followed.stderr)")
        let history = try await alice.run("/history #swift 5")
        #expect(history.lines.contains { $0.contains("<bob> hello everyone") }, "\(history.lines)")
        // A group he is not in yet is joined as before.
        #expect(try await alice.run("/create #linux Linux").status == 0)
        let joined = try await bob.run("/join #linux")
        #expect(joined.lines.contains { $0.contains("Joined #linux") }, "\(joined.lines)")
    }
}
