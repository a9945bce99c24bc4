import Foundation
import ParleyTesting
import Testing

/// `/report` and `/reports` against a server with an operator (`--admin @oscar`).
@Suite struct ReportScriptTests {
    @Test(arguments: StoreKind.all) func aReportReachesTheOperatorsQueueAndIsResolved(_ store: StoreKind) async throws {
        let world = try await ServedShells(["alice", "bob", "oscar"], store: store, arguments: ["--admin", "@oscar"])
        defer { world.remove() }
        let (alice, bob, oscar) = (world["alice"], world["bob"], world["oscar"])
        #expect(try await oscar.run("/register oscar@example.com --handle oscar --password operator-123").status == 0)
        #expect(
            try await alice.run(
                "/register alice@example.com --handle alice --password wonderland-1\n/create #team\n/send #team buy cheap watches"
            )
            .status == 0)
        let reported = try await bob.run(
            "/register bob@example.com --handle bob --password builder-123\n/join #team\n/report #team 1 spam, twice today")
        #expect(reported.status == 0, "\(reported.stderr)")
        #expect(reported.lines.last == "Reported message 1 of #team by @alice to the operators (report 1)", "\(reported.lines)")

        // Only an operator reads the queue.
        let refused = try await bob.run("/reports")
        #expect(refused.status != 0 && refused.stderr.contains("forbidden: only the server's operators read and resolve reports"))
        let queue = try await oscar.run("/reports")
        #expect(queue.status == 0, "\(queue.stderr)")
        #expect(queue.lines.count == 2, "\(queue.lines)")
        #expect(queue.lines.first?.hasSuffix("@bob reports #team #1 by @alice — spam, twice today") == true, "\(queue.lines)")
        #expect(queue.lines.last == "      \"buy cheap watches\"")
        let resolved = try await oscar.run("/reports resolve 1 warned @alice\n/reports\n/reports --all")
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.lines.contains("Resolved report 1: warned @alice"))
        #expect(resolved.lines.contains("No open reports"))
        #expect(resolved.lines.last?.contains("resolved ") == true && resolved.lines.last?.hasSuffix("by @oscar: warned @alice") == true)
    }
}
