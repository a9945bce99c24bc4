import Foundation
public import Logging
public import ParleyCore
public import ParleyLive
import PostgresNIO
public import ServiceLifecycle
import Synchronization

/// Who is online across nodes: each node records its users with live sessions in
/// `node_session` and keeps its `node` row fresh with a heartbeat. A node whose
/// heartbeat is older than the timeout counts as gone: the first surviving node to
/// notice deletes its rows and tells the contacts of its users that they went offline.
/// Times are the database's clock, so nodes' clocks need not agree.
public final class PostgresPresence: PresenceLedger, Service {
    public let node: String
    private let client: PostgresClient
    private let location: PostgresLocation
    private let logger: Logger
    private let timeout: Duration
    /// This node's sessions (the engine), once bound.
    private let sessions = Mutex<(any LocalSessions)?>(nil)
    private static let now = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

    /// - Parameter timeout: how long a node may miss heartbeats before its users are
    ///   shown offline; it beats three times per timeout.
    public init(store: PostgresChatStore, timeout: Duration = .seconds(15), logger: Logger) {
        self.client = store.client
        self.location = store.location
        self.logger = logger
        self.timeout = max(timeout, .seconds(1))
        node = "\(ProcessInfo.processInfo.hostName.prefix(40))-\(UUID().uuidString.prefix(8).lowercased())"
    }

    private var timeoutMilliseconds: Int64 {
        let (seconds, attoseconds) = timeout.components
        return seconds &* 1000 &+ attoseconds / 1_000_000_000_000_000
    }

    public func bind(to sessions: any LocalSessions) {
        self.sessions.withLock { $0 = sessions }
    }

    /// Records this node; call before the server takes connections (the pool need
    /// not run yet).
    public func register() async throws {
        try await PostgresChatStore.withConnection(to: location, logger: logger) { connection in
            try await connection.query(Self.registration(node), logger: logger)
        }
    }

    private static func registration(_ node: String) -> PostgresQuery {
        """
        INSERT INTO node (id, started_at, heartbeat_at) VALUES (\(node), \(unescaped: now), \(unescaped: now))
        ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at
        """
    }

    public func arrived(_ user: UserID) async -> Bool {
        do {
            let rows = try await client.query(
                """
                WITH elsewhere AS (
                    SELECT 1 FROM node_session s JOIN node n ON n.id = s.node_id
                    WHERE s.user_id = \(user.rawValue) AND s.node_id <> \(node) AND n.heartbeat_at > \(unescaped: Self.now) - \(timeoutMilliseconds)
                ), added AS (
                    INSERT INTO node_session (node_id, user_id, sessions) VALUES ($2, $1, 1)
                    ON CONFLICT (node_id, user_id) DO NOTHING
                )
                SELECT NOT EXISTS (SELECT 1 FROM elsewhere)
                """, logger: logger
            ).collect()
            return try rows.first?.decode(Bool.self) ?? true
        } catch {
            logger.warning("presence not recorded", metadata: ["error": "\(PostgresChatStore.describe(error))"])
            return true
        }
    }

    public func left(_ user: UserID) async -> Bool {
        do {
            try await client.query("DELETE FROM node_session WHERE node_id = \(node) AND user_id = \(user.rawValue)", logger: logger)
            return await onlineElsewhere(among: [user]).isEmpty
        } catch {
            logger.warning("presence not recorded", metadata: ["error": "\(PostgresChatStore.describe(error))"])
            return true
        }
    }

    public func onlineElsewhere(among users: [UserID]) async -> Set<UserID> {
        guard !users.isEmpty else { return [] }
        do {
            let rows = try await client.query(
                """
                SELECT DISTINCT s.user_id FROM node_session s JOIN node n ON n.id = s.node_id
                WHERE s.user_id = ANY(\(users.map(\.rawValue))) AND s.node_id <> \(node)
                    AND n.heartbeat_at > \(unescaped: Self.now) - \(timeoutMilliseconds)
                """, logger: logger
            ).collect()
            return Set(try rows.map { UserID(try $0.decode(Int64.self)) })
        } catch {
            logger.warning("presence not read", metadata: ["error": "\(PostgresChatStore.describe(error))"])
            return []
        }
    }

    public func onlineElsewhere() async -> Set<UserID> {
        do {
            let rows = try await client.query(
                """
                SELECT DISTINCT s.user_id FROM node_session s JOIN node n ON n.id = s.node_id
                WHERE s.node_id <> \(node) AND n.heartbeat_at > \(unescaped: Self.now) - \(timeoutMilliseconds)
                """, logger: logger
            ).collect()
            return Set(try rows.map { UserID(try $0.decode(Int64.self)) })
        } catch {
            logger.warning("presence not read", metadata: ["error": "\(PostgresChatStore.describe(error))"])
            return []
        }
    }

    static let sessionChannel = "parley_sessions"

    /// Tells the other nodes to end the sessions: a notification `NODE USER signed-out
    /// HEX`, `NODE USER password-changed HEX` (`-` for no token kept) or `NODE USER
    /// removed CODE HEX-OF-MESSAGE`. This node
    /// ignores its own: the engine has ended its sessions here, and the session that
    /// signed out may be signed in anew by the time the notification comes back.
    public func endSessionsElsewhere(of user: UserID, _ end: SessionEnd) async {
        let payload =
            switch end {
            case .signedOut(let token): "\(node) \(user.rawValue) signed-out \(token.hex)"
            case .passwordChanged(let kept): "\(node) \(user.rawValue) password-changed \(kept?.hex ?? "-")"
            case .removed(let code, let message): "\(node) \(user.rawValue) removed \(code) \(Data(message.utf8).hex)"
            }
        do {
            try await client.query("SELECT pg_notify(\(Self.sessionChannel), \(payload))", logger: logger)
        } catch {
            logger.error("other nodes not told to end sessions", metadata: ["error": "\(PostgresChatStore.describe(error))"])
        }
    }

    /// What a notification from another node asks, or nil for this node's own and for
    /// one that does not parse.
    func sessionEnd(_ payload: String) -> (UserID, SessionEnd)? {
        let parts = payload.split(separator: " ")
        guard parts.count >= 4, parts[0] != node, let user = Int64(parts[1]) else { return nil }
        if parts[2] == "removed", parts.count == 5, let text = Data(hex: parts[4]) {
            return (UserID(user), .removed(code: String(parts[3]), message: String(decoding: text, as: UTF8.self)))
        }
        guard parts.count == 4 else { return nil }
        switch parts[2] {
        case "signed-out": return Data(hex: parts[3]).map { (UserID(user), .signedOut(token: $0)) }
        case "password-changed": return (UserID(user), .passwordChanged(keeping: parts[3] == "-" ? nil : Data(hex: parts[3])))
        default: return nil
        }
    }

    private func listenForSessionEnds() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.sessionChannel) { notifications in
                        for try await notification in notifications {
                            guard let (user, end) = self.sessionEnd(notification.payload) else { continue }
                            self.sessions.withLock { $0 }?.endSessionsHere(of: user, end)
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "listening for ended sessions failed; reconnecting", metadata: ["error": "\(PostgresChatStore.describe(error))"])
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Beats, and buries nodes that stopped beating; on graceful shutdown, removes
    /// this node (its users' sessions have closed by then).
    public func run() async {
        // Ends with its connection when the pool stops (see PostgresEventBus.run).
        let listener = Task { await self.listenForSessionEnds() }
        defer { listener.cancel() }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.beat()
                await self.buryStaleNodes()
                try? await Task.sleep(for: self.timeout / 3)
            }
        }
        // Goodbye, unless the database is gone: then the others bury this node later.
        let node = node
        let client = client
        let logger = logger
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await client.query("DELETE FROM node WHERE id = \(node)", logger: logger) }
            group.addTask { try? await Task.sleep(for: .seconds(3)) }
            await group.next()
            group.cancelAll()
        }
    }

    private func beat() async {
        do {
            let alive = try await client.query(
                "UPDATE node SET heartbeat_at = \(unescaped: Self.now) WHERE id = \(node) RETURNING 1", logger: logger
            ).collect()
            guard alive.isEmpty else { return }
            // Another node took this one for gone (it missed beats): stand up again.
            logger.warning("this node was taken for gone; recording its sessions again", metadata: ["node": "\(node)"])
            try await client.query(Self.registration(node), logger: logger)
            for user in sessions.withLock({ $0 })?.usersOnlineHere ?? [] { _ = await arrived(user) }
        } catch {
            logger.warning("heartbeat failed", metadata: ["error": "\(PostgresChatStore.describe(error))"])
        }
    }

    private func buryStaleNodes() async {
        do {
            let rows = try await client.query(
                """
                WITH dead AS (
                    DELETE FROM node WHERE heartbeat_at < \(unescaped: Self.now) - \(timeoutMilliseconds) AND id <> \(node) RETURNING id
                )
                SELECT DISTINCT s.user_id FROM node_session s JOIN dead ON dead.id = s.node_id
                """, logger: logger
            ).collect()
            guard !rows.isEmpty else { return }
            let users = try rows.map { UserID(try $0.decode(Int64.self)) }
            let stillOnline = await onlineElsewhere(among: users)
            let gone = users.filter { !stillOnline.contains($0) }
            logger.notice("a node stopped answering: its users are offline", metadata: ["users": "\(gone.count)"])
            await sessions.withLock({ $0 })?.announceOffline(gone)
        } catch {
            logger.warning("looking for stopped nodes failed", metadata: ["error": "\(PostgresChatStore.describe(error))"])
        }
    }
}
