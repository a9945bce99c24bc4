import Foundation

extension Link {
    /// Where a link connects and how patiently.
    struct Settings: Sendable {
        /// Nodes of one service, tried in turn: when one stops answering, the next.
        var urls: [String]
        var trust = ServerTrust()
        var connectTimeout: Duration = .seconds(5)
        /// How long a request waits after a connection that was up is lost (a send is
        /// queued after that); nil: as long as for a first connection.
        var reconnectWait: Duration?
        var outboxURL: URL?
    }
}
