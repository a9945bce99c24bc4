public import Foundation
import ParleyCore
import PostgresNIO

/// Where a PostgreSQL database is, from `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`.
/// The password comes from the URL or, when it has none, from `PGPASSWORD`.
public struct PostgresLocation: Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String

    /// Reads a URL; a malformed one throws `unavailable` (no database to reach) saying
    /// what is wrong.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func malformed(_ why: String) -> ParleyError {
            // Shown without a password, and only when it reads as a URL at all.
            var shown = URLComponents(string: url)
            shown?.password = nil
            let named = shown?.string.map { " " + $0.prefix(200) } ?? ""
            return ParleyError(.unavailable, "--postgres\(named): \(why); expected postgres://USER@HOST:PORT/DATABASE")
        }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw malformed("not a URL")
        }
        guard scheme == "postgres" || scheme == "postgresql" else { throw malformed("the scheme must be postgres://") }
        guard let host = components.host, !host.isEmpty else { throw malformed("no host") }
        guard let user = components.user, !user.isEmpty else { throw malformed("no user") }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else { throw malformed("no database name") }
        if let port = components.port, !(1...65535).contains(port) { throw malformed("the port is out of range") }
        self.host = host
        self.port = components.port ?? 5432
        self.user = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 } ?? environment["PGPASSWORD"]
        self.database = database.removingPercentEncoding ?? database
    }

    /// The URL without its password, for logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    func clientConfiguration(connections: Int) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: .disable)
        configuration.options.maximumConnections = connections
        configuration.options.minimumConnections = 1
        return configuration
    }

    func connectionConfiguration() -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }
}
