import Foundation
import ParleyTesting
import Testing

/// The hotlist counts each message once however the shell learns of it: live, in the chat
/// list's unread count when it starts again, and in what a resume replays after its own
/// restart or the server's.
@Suite(.timeLimit(.minutes(10))) struct HotlistRestartTests {
    @Test func aMessageCountsOnceAcrossRestartsOfTheShellAndTheServer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-hotlist-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var server = try await ServeProcess.startRestartable(data: folder.appendingPathComponent("server"))
        defer { server.stop() }
        let ann = ParleyBinary(serverURL: server.url)
        let bob = ParleyBinary(serverURL: server.url)
        defer {
            ann.remove()
            bob.remove()
        }
        #expect(try await ann.run("/register ann@example.com --handle ann --password secret-ann1\n/create #aa").status == 0)
        #expect(try await bob.run("/register bob@example.com --handle bob --password secret-bob1\n/join #aa").status == 0)
        let command = "PARLEY_BCRYPT_COST=4 NO_COLOR=1 \(ParleyBinary.executable.path) --data \(ann.data.path) --server \(server.url)"
        var terminal = TmuxSession()
        defer { terminal.stop() }
        try await terminal.start(command)
        _ = try await terminal.waitFor("ann>")
        try await terminal.type("/switch #aa", "Enter")
        _ = try await terminal.waitFor("ann #aa>")

        // Each step ends with a message in #aa, the chat ann looks at: it comes after
        // anything the shell was told before it, so the prompt shows the count by then.
        func expectHotlist(_ hot: String, after marker: String) async throws {
            #expect(try await bob.run("/send #aa \(marker)").status == 0)
            // The prompt is drawn again just after the line: waited for, as a person reads it.
            func prompt(_ screen: String) -> String {
                screen.split(separator: "\n").last { $0.contains("ann #aa>") }.map(String.init) ?? ""
            }
            let screen = try await terminal.waitFor("\(marker) with the hotlist \(hot)") {
                $0.contains(marker) && prompt($0).hasPrefix("(\(hot)) ann #aa>")
            }
            #expect(prompt(screen).hasPrefix("(\(hot)) ann #aa>"), "\(screen)")
        }
        #expect(try await bob.run("/msg @ann first").status == 0)
        try await expectHotlist("@bob 1", after: "marker one")

        // ann's shell quits and starts again: the chat list says 1 unread, and the resume
        // from where it stopped may bring the message again.
        try await terminal.type("C-d")
        _ = try await terminal.waitFor("the shell to exit") { $0.isEmpty }
        terminal.stop()
        terminal = TmuxSession()
        try await terminal.start(command)
        _ = try await terminal.waitFor("ann #aa>")
        try await expectHotlist("@bob 1", after: "marker two")
        #expect(try await bob.run("/msg @ann second").status == 0)
        try await expectHotlist("@bob 2", after: "marker three")

        // The server is killed and comes back; the shell resumes.
        server.kill()
        _ = try await terminal.waitFor("[connection lost]")
        server = try await ServeProcess.start(data: folder.appendingPathComponent("server"), port: server.port)
        _ = try await terminal.waitFor("[connection back]")
        try await expectHotlist("@bob 2", after: "marker four")
        #expect(try await bob.run("/msg @ann third").status == 0)
        try await expectHotlist("@bob 3", after: "marker five")
    }
}
