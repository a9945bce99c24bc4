import Foundation
import ParleyTesting
import Testing

/// `PARLEY_STAGES=FILE` (scripts/send-stages.sh): a server stopped with SIGTERM writes,
/// for each send, when it reached each stage after its frame arrived; the stages come in
/// their order, and requests that were not sends are left out.
@Suite(.timeLimit(.minutes(10))) struct SendStagesTests {
    @Test func aServerWritesEachSendsStages() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-stages-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("stages.tsv")
        let server = try await ServeProcess.start(data: folder.appendingPathComponent("data"), environment: ["PARLEY_STAGES": file.path])
        let alice = ParleyBinary(serverURL: server.url)
        let bob = ParleyBinary(serverURL: server.url)
        defer {
            alice.remove()
            bob.remove()
        }
        #expect(try await bob.run("/register bob@example.com --handle bob --password builder-123\n/create #team").status == 0)
        let sent = try await alice.run(
            "/register alice@example.com --handle alice --password wonderland-1\n/join #team\n/send #team one\n/send #team two\n/send #team three"
        )
        #expect(sent.status == 0, "\(sent.stderr)")
        server.stop()

        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.first == "task\tengine\tstore\tcommitted\tpublished\treplied\tdelivered")
        let sends = lines.dropFirst().map { $0.split(separator: "\t").map { Int($0) } }
        #expect(sends.count == 3, "the three sends, not the sign-ups, joins or reads: \(lines)")
        for stages in sends {
            // Nobody else was connected: no recipient's frame, so no `delivered`.
            #expect(stages.count == 7 && stages.last == .some(nil), "\(stages)")
            let reached = stages.prefix(6).compactMap { $0 }
            #expect(reached.count == 6, "\(stages)")
            #expect(Array(reached.prefix(5)) == reached.prefix(5).sorted(), "in order: \(stages)")
            #expect(reached.count == 6 && reached[5] >= reached[4], "the reply after the publication: \(stages)")
        }
    }
}
