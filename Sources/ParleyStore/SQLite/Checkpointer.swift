import Foundation
import GRDB
import Synchronization

/// Copies the WAL back into the database file from a connection of its own, so no
/// send waits for a checkpoint (SQLite's automatic checkpoint runs inside the commit
/// that crosses the threshold, with its fsyncs).
final class Checkpointer: Sendable {
    private let connection: DatabaseQueue
    private let queue = DispatchQueue(label: "parley.checkpoint", qos: .utility)
    private let state = Mutex((commits: 0, running: false))
    private let commitsBetweenCheckpoints = 500

    init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        connection = try DatabaseQueue(path: path, configuration: configuration)
    }

    /// Counts a commit, and starts a passive checkpoint every few hundred.
    func didCommit() {
        let start = state.withLock { state in
            state.commits += 1
            guard state.commits >= commitsBetweenCheckpoints, !state.running else { return false }
            state.commits = 0
            state.running = true
            return true
        }
        guard start else { return }
        queue.async {
            _ = try? self.connection.writeWithoutTransaction { db in try db.checkpoint(.passive) }
            self.state.withLock { $0.running = false }
        }
    }

    func close() throws {
        try connection.close()
    }
}
