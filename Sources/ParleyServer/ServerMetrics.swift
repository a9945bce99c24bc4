import CoreMetrics
import Foundation
import ParleyProtocol
import Prometheus
import Synchronization

/// The server's counters, kept in its own Prometheus registry (so several servers in
/// one process, as in tests, do not share them) and published at `/metrics`.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let connections: CoreMetrics.Meter
    let sessions: CoreMetrics.Meter
    let sent: CoreMetrics.Counter
    let delivered: CoreMetrics.Counter
    let rejected: CoreMetrics.Counter
    let uploads: CoreMetrics.Counter
    let downloads: CoreMetrics.Counter
    /// Sockets closed because they did not read their events.
    let slowClosed: CoreMetrics.Counter
    /// Connections refused because the server had `maxConnections` open.
    let refusedConnections: CoreMetrics.Counter
    /// Connections closed before they finished their HTTP request or upgrade.
    let handshakeTimeouts: CoreMetrics.Counter
    /// Expired sessions and sign-in codes the upkeep deleted.
    let purged: CoreMetrics.Counter
    /// Uploads no message or avatar took up, which the upkeep deleted.
    let swept: CoreMetrics.Counter
    private let latency: Mutex<[Op: CoreMetrics.Timer]>
    private let factory: PrometheusMetricsFactory

    init() {
        factory = PrometheusMetricsFactory(registry: registry)
        connections = CoreMetrics.Meter(label: "parley_connections", factory: factory)
        sessions = CoreMetrics.Meter(label: "parley_sessions", factory: factory)
        sent = CoreMetrics.Counter(label: "parley_messages_sent_total", factory: factory)
        delivered = CoreMetrics.Counter(label: "parley_events_delivered_total", factory: factory)
        rejected = CoreMetrics.Counter(label: "parley_requests_rejected_total", factory: factory)
        uploads = CoreMetrics.Counter(label: "parley_media_uploads_total", factory: factory)
        downloads = CoreMetrics.Counter(label: "parley_media_downloads_total", factory: factory)
        slowClosed = CoreMetrics.Counter(label: "parley_slow_sockets_closed_total", factory: factory)
        refusedConnections = CoreMetrics.Counter(label: "parley_connections_refused_total", factory: factory)
        handshakeTimeouts = CoreMetrics.Counter(label: "parley_handshake_timeouts_total", factory: factory)
        purged = CoreMetrics.Counter(label: "parley_expired_purged_total", factory: factory)
        swept = CoreMetrics.Counter(label: "parley_unused_uploads_swept_total", factory: factory)
        latency = Mutex([:])
    }

    /// Records how long a request took, per op.
    func record(op: Op, since start: ContinuousClock.Instant) {
        let timer = latency.withLock { timers in
            if let timer = timers[op] { return timer }
            let timer = CoreMetrics.Timer(label: "parley_request_duration_seconds", dimensions: [("op", op.rawValue)], factory: factory)
            timers[op] = timer
            return timer
        }
        timer.recordInterval(since: start)
    }
}

extension CoreMetrics.Timer {
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
