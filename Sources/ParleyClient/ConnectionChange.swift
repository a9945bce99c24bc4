/// What happened to a connection that was up: it was lost, or it is back. `complete`
/// is false when messages from the time away may be missing from the events (the
/// server no longer kept them and they could not all be fetched). `signedOut`: the
/// server ended the session (signed out elsewhere, a revoked bot token); the connection
/// stays, signed out. `removed`: the server's operators suspended or banned the account.
public enum ConnectionChange: Sendable, Equatable {
    case lost
    case back(complete: Bool)
    case signedOut(reason: String)
    case removed(reason: String)
}
