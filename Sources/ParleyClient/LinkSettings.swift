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
        /// How the client names itself to the server (its sessions list shows it).
        var client = "parley"
    }

    /// The socket URL with the client's name in its query (`?client=parley%2F0.1.0`),
    /// which the server records with the session.
    static func identified(_ url: String, as client: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let name = client.addingPercentEncoding(withAllowedCharacters: allowed) ?? "parley"
        return url + (url.contains("?") ? "&" : "?") + "client=" + name
    }
}
