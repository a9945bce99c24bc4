import Foundation
import ParleyCore
import ParleyProtocol
import Prometheus
import Synchronization

/// The server's metrics, kept in its own Prometheus registry (so several servers in one
/// process, as in tests, do not share them) and published at `/metrics`, each with a
/// `# HELP` line, in base units (seconds, bytes) and Prometheus's naming (`_total` for
/// counters). docs/server.md lists them with example alert rules.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()

    // Connections
    /// Sockets that have not signed in yet, and signed-in ones.
    let anonymousConnections: Gauge
    let signedInConnections: Gauge
    /// Sockets closed because they did not read their events.
    let slowClosed: Counter
    /// Connections refused because the server had `maxConnections` open.
    let refusedConnections: Counter
    /// Connections refused because their address held its `--max-unsigned-per-address`.
    let refusedPerAddress: Counter
    /// Connections closed before they finished their HTTP request or upgrade.
    let handshakeTimeouts: Counter

    // Requests and messages
    let sent: Counter
    let delivered: Counter
    /// Frames refused before any op ran: unreadable, or past the rate limit.
    let rejected: Counter
    let uploads: Counter
    let downloads: Counter
    let commitSeconds: DurationHistogram
    let commitBatch: ValueHistogram
    let deliverySeconds: DurationHistogram
    let queuedEvents: ValueHistogram

    // Upkeep and storage
    let purged: Counter
    let swept: Counter
    let expired: Counter
    let backlogEvents: Gauge
    let databaseBytes: Gauge
    let walBytes: Gauge
    let searchBytes: Gauge

    private let perOp: Mutex<[Op: (requests: Counter, seconds: DurationHistogram)]>
    private let perError: Mutex<[ErrorCode: Counter]>

    /// Request and commit times: 100 µs to 10 s.
    static let timeBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2.5), .seconds(10),
    ]
    static let countBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 1024]

    init() {
        func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "parley", metricName: metric, unitName: unit, helpText: help)
        }
        let connections = name("connections", "", "Open WebSocket connections, by whether they have signed in.")
        anonymousConnections = registry.makeGauge(descriptor: connections, labels: [("state", "anonymous")])
        signedInConnections = registry.makeGauge(descriptor: connections, labels: [("state", "signed_in")])
        slowClosed = registry.makeCounter(
            descriptor: name("slow_sockets_closed", "total", "Sockets closed because they left their events unread."))
        refusedConnections = registry.makeCounter(
            descriptor: name("connections_refused", "total", "Connections refused because --max-connections were open."))
        refusedPerAddress = registry.makeCounter(
            descriptor: name(
                "connections_refused_per_address", "total",
                "Connections refused because their address held --max-unsigned-per-address connections that had not signed in."))
        handshakeTimeouts = registry.makeCounter(
            descriptor: name("handshake_timeouts", "total", "Connections closed before they finished their HTTP request or upgrade."))
        sent = registry.makeCounter(descriptor: name("messages_sent", "total", "Messages stored and acknowledged."))
        delivered = registry.makeCounter(
            descriptor: name("events_delivered", "total", "Events queued for sockets (one per recipient socket)."))
        rejected = registry.makeCounter(
            descriptor: name("requests_rejected", "total", "Frames refused before any op ran: unreadable, or past the rate limit."))
        uploads = registry.makeCounter(descriptor: name("media_uploads", "total", "Media uploads stored."))
        downloads = registry.makeCounter(descriptor: name("media_downloads", "total", "Media downloads served."))
        commitSeconds = registry.makeDurationHistogram(
            descriptor: name("commit_duration", "seconds", "Time to commit one batch of messages to the database."), labels: [],
            buckets: Self.timeBuckets)
        commitBatch = registry.makeValueHistogram(
            descriptor: name("commit_batch", "messages", "Messages per committed batch (sends that arrive together share one)."),
            labels: [], buckets: Self.countBuckets)
        deliverySeconds = registry.makeDurationHistogram(
            descriptor: name(
                "delivery_duration", "seconds",
                "From an event's publication, after its commit, to the last socket write of it on an event loop."), labels: [],
            buckets: Self.timeBuckets)
        queuedEvents = registry.makeValueHistogram(
            descriptor: name("socket_write_batch", "events", "Events waiting for a socket when its writer ran (outbound queue depth)."),
            labels: [], buckets: Self.countBuckets)
        purged = registry.makeCounter(
            descriptor: name("expired_purged", "total", "Expired sessions and sign-in codes deleted by the upkeep."))
        swept = registry.makeCounter(
            descriptor: name("unused_uploads_swept", "total", "Uploads no message or avatar took up, deleted by the upkeep."))
        expired = registry.makeCounter(
            descriptor: name("messages_expired", "total", "Messages deleted by retention: older than their chat's or the server's policy."))
        backlogEvents = registry.makeGauge(descriptor: name("event_backlog", "events", "Events kept in memory for clients that resume."))
        let storage = name("database", "bytes", "Size of the database files.")
        databaseBytes = registry.makeGauge(descriptor: storage, labels: [("file", "database")])
        walBytes = registry.makeGauge(descriptor: storage, labels: [("file", "wal")])
        searchBytes = registry.makeGauge(descriptor: storage, labels: [("file", "search")])
        perOp = Mutex([:])
        perError = Mutex([:])
    }

    /// Records a request: one more for its op, how long it took, and its error if any.
    func record(op: Op, since start: ContinuousClock.Instant, error: ErrorCode?) {
        let (requests, seconds) = perOp.withLock { metrics in
            if let existing = metrics[op] { return existing }
            let labels = [("op", op.rawValue)]
            let made = (
                registry.makeCounter(
                    descriptor: MetricNameDescriptor(
                        namespace: "parley", metricName: "requests", unitName: "total", helpText: "Requests answered, by op."),
                    labels: labels),
                registry.makeDurationHistogram(
                    descriptor: MetricNameDescriptor(
                        namespace: "parley", metricName: "request_duration", unitName: "seconds",
                        helpText: "Time from a request frame's arrival to its reply, by op."),
                    labels: labels, buckets: Self.timeBuckets)
            )
            metrics[op] = made
            return made
        }
        requests.increment()
        seconds.record(ContinuousClock.now - start)
        if let error { count(error) }
    }

    /// One more refusal with `code`.
    func count(_ code: ErrorCode) {
        let counter = perError.withLock { counters in
            if let existing = counters[code] { return existing }
            let made = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: "parley", metricName: "request_errors", unitName: "total", helpText: "Requests refused, by error code."),
                labels: [("code", code.rawValue)])
            counters[code] = made
            return made
        }
        counter.increment()
    }

    /// The metrics as Prometheus text, with the gauges sampled now.
    func exposition(backlog: Int, database: String?) -> [UInt8] {
        backlogEvents.set(Int64(backlog))
        if let database {
            databaseBytes.set(Self.size(of: database))
            walBytes.set(Self.size(of: database + "-wal"))
            // The search index's file and its log, beside the database (SQLite's `SearchIndexer`).
            searchBytes.set(Self.size(of: database + "-search") + Self.size(of: database + "-search-wal"))
        }
        return registry.emitToBuffer()
    }

    private static func size(of path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.int64Value ?? 0
    }
}
