/// The ways into the engine. Each asks the one gate (`ChatEngine+Gate`) on every request
/// it takes; the rules × doors test reads this list and `GateRule`'s, so a door or a rule
/// added here without a case there fails it.
public enum Door: String, CaseIterable, Sendable {
    /// A client's WebSocket (`/v1/ws`): the remote shell, the bot host, any program.
    case webSocket = "WebSocket"
    /// The IRC gateway (`--irc-port`).
    case irc = "IRC"
    /// `POST /v1/api/OP` with a session or bot token.
    case httpAPI = "HTTP API"
    /// `PUT /v1/media` and `GET /v1/media/ID`, by token or signed link.
    case media = "media"
    /// `POST /v1/hooks/TOKEN`: a post becomes the hook's message.
    case incomingHook = "incoming hook"
    /// An outgoing hook's answer, posted as the hook's reply.
    case outgoingHookAnswer = "outgoing hook answer"
    /// The shell and its plugins on an embedded database (`parley` with no server).
    case embedded = "embedded shell and bot host"
}

/// What the gate and the engine's verbs refuse at every door, each with one code.
public enum GateRule: String, CaseIterable, Sendable {
    case signedOut = "signed out"
    case revokedToken = "revoked token"
    case suspended = "suspended"
    case bannedAccount = "banned by account"
    case bannedRange = "banned by address range"
    case notMember = "not a member"
    case notAdmin = "not an admin"
    case overRate = "over the rate"
    case tooLarge = "too large"
    case forgedProvenance = "forged provenance"
}
