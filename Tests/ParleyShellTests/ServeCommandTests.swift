import Foundation
import ParleyTesting
import Testing

@Suite struct ServeCommandTests {
    /// SIGTERM stops `parley serve` gracefully: connected clients get a close frame
    /// (normal closure or going away), even one that never answers, and the process exits 0.
    @Test(.timeLimit(.minutes(1))) func sigtermClosesSocketsAndExitsCleanly() throws {
        let parley = try ParleyBinary(mode: .server)
        defer { parley.remove() }
        let port = try #require(parley.serverURL.flatMap { URL(string: $0)?.port })
        #expect(try httpGet(port: port, path: "/healthz") == "ok\n")
        let client = try SilentSocket(port: port)
        let status = try #require(parley.stopServer(signal: SIGTERM))
        let code = client.readCloseCode()
        #expect(code == 1000 || code == 1001, "a close frame, not a dropped connection")
        #expect(status == 0)
    }
}
