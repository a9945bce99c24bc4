/// Presence watches (IRC's MONITOR): handles, taken or not, whose comings and goings a
/// user is told of. A gateway's verbs (`GatewayService`).
public protocol WatchService: AnyObject, Sendable {
    /// Watches handles, at most `Limits.maxPresenceWatches` in all; returns the ones now
    /// watched with who is online (a handle that is not valid is left out, and so are
    /// the ones past the limit).
    func watchPresence(of handles: [String]) async throws -> [WatchedPresence]

    /// Stops watching handles (nil: all of them).
    func unwatchPresence(of handles: [String]?) async throws

    /// The handles the user watches, with who is online.
    func watchedPresence() async throws -> [WatchedPresence]
}

/// A handle a user watches (IRC's MONITOR), and whether someone under it is online.
public struct WatchedPresence: Hashable, Sendable {
    public var handle: String
    /// Who holds the handle now, if anyone.
    public var user: UserRef?
    public var online: Bool

    public init(handle: String, user: UserRef?, online: Bool) {
        self.handle = handle
        self.user = user
        self.online = online
    }
}
