import Foundation
import ParleyTesting
import Testing

/// `parley serve` (with its IRC gateway) in a folder of its own, and shells of the
/// given people against it, each with a data folder of its own; `remove()` stops and
/// deletes them all.
struct ServedShells {
    let folder: URL
    let server: ServeProcess
    let shells: [String: ParleyBinary]

    /// `people` name the shells; `arguments` go to `parley serve`; `store` is `sqlite` (in
    /// the data folder) or `postgres` (a fresh database). The IRC client of a test reads
    /// only while it waits, so the ping timeout is long enough that no load trips it.
    init(_ people: [String], store: StoreKind = .sqlite, arguments: [String] = []) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-served-\(UUID().uuidString)")
        let database = try store.serveArguments()
        server = try await ServeProcess.start(
            data: folder.appendingPathComponent("data"), arguments: ["--irc-port", "0", "--ping-timeout", "600"] + database + arguments)
        let url = server.url
        shells = Dictionary(uniqueKeysWithValues: people.map { ($0, ParleyBinary(serverURL: url)) })
    }

    subscript(person: String) -> ParleyBinary {
        guard let shell = shells[person] else { fatalError("no shell for \(person)") }
        return shell
    }

    func remove() {
        server.stop()
        for shell in shells.values { shell.remove() }
        try? FileManager.default.removeItem(at: folder)
    }
}

extension ServedShells {
    /// An IRC client of the server signed in as `handle` with `capabilities`, in `channel`.
    func irc(_ handle: String, _ password: String, capabilities: [String], in channel: String) async throws -> IRCTestClient {
        let client = try IRCTestClient(port: try #require(server.ircPort))
        #expect(try await client.signIn(handle, password: password, capabilities: capabilities))
        try client.send("JOIN \(channel)")
        #expect(await client.wait(containing: " 366 \(handle) \(channel) ") != nil)
        return client
    }
}
