import Foundation
import ParleyTesting
import Testing

/// The PostgreSQL the store tests will run on: started by the test itself, taking
/// connections, and gone after `stop()`. Without the server's binaries this fails
/// and says what to install; it is never skipped.
@Suite(.timeLimit(.minutes(10))) struct ThrowawayPostgresTests {
    @Test func aServerOfTheTestsOwnTakesConnectionsAndGoesAway() throws {
        let postgres = try ThrowawayPostgres.start()
        let answer = try postgres.tool(
            "psql", ["-h", "127.0.0.1", "-p", String(postgres.port), "-U", postgres.user, "-d", postgres.database, "-tAc", "SELECT 40 + 2"])
        #expect(answer.trimmingCharacters(in: .whitespacesAndNewlines) == "42")
        #expect(postgres.url == "postgres://parley@127.0.0.1:\(postgres.port)/parley")
        postgres.stop()
        #expect(!FileManager.default.fileExists(atPath: postgres.folder.path))
        #expect(throws: (any Error).self) {
            try postgres.tool("psql", ["-h", "127.0.0.1", "-p", String(postgres.port), "-U", "parley", "-d", "parley", "-tAc", "SELECT 1"])
        }
    }
}
