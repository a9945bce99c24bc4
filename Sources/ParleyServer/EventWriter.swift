import NIOCore
import ParleyLive
import Prometheus
import Synchronization

/// The events on their way to the sockets of one event loop. The first event queued
/// since the last run schedules one task on the loop, which writes every socket's
/// events, each socket's in one flush: a message to a group of 50 costs a task per
/// event loop, not one per member, and the subscriber that delivers is held no longer
/// than it takes to queue. Under a steady stream of events runs average
/// at most one an `interval`, so that each socket write carries several (at 2,000
/// messages/s to a group of 50, the socket writes were most of the server's CPU); when
/// the sockets get fewer than that would gather, events go at once (`DeliveryPace`).
final class EventWriter: Sendable {
    private struct Pending {
        /// Each socket's frames, in the order they came; keyed by the socket's handler.
        var sockets: [ObjectIdentifier: (socket: NIOLoopBound<SocketHandler>, frames: [ByteBuffer])] = [:]
        /// When each event of this run was first queued (its publication), by position.
        var published: [UInt64: ContinuousClock.Instant] = [:]
        /// The position queued last: an event's recipients mostly come one after
        /// another, so only the first of them looks `published` up.
        var lastPosition: UInt64?
        /// The sends traced for `PARLEY_STAGES` whose events this run writes.
        var traces: [StageTrace] = []
        var scheduled = false
        var pace: DeliveryPace
    }

    private let eventLoop: any EventLoop
    private let metrics: ServerMetrics
    private let pending: Mutex<Pending>

    init(eventLoop: any EventLoop, interval: Duration, metrics: ServerMetrics) {
        self.eventLoop = eventLoop
        self.metrics = metrics
        pending = Mutex(Pending(pace: DeliveryPace(interval: interval)))
    }

    /// Queues `frame`, the event at `position`, for `socket` (whose handler is `id`).
    func add(_ frame: ByteBuffer, to socket: NIOLoopBound<SocketHandler>, id: ObjectIdentifier, position: UInt64) {
        let wait: Duration? = pending.withLock { pending in
            pending.sockets[id, default: (socket, [])].frames.append(frame)
            if pending.lastPosition != position {
                pending.lastPosition = position
                if pending.published[position] == nil {
                    pending.published[position] = .now
                    if let trace = StageTrace.current { pending.traces.append(trace) }
                }
            }
            guard !pending.scheduled else { return nil }
            pending.scheduled = true
            return pending.pace.wait(at: .now)
        }
        guard let wait else { return }
        if wait == .zero {
            eventLoop.execute { self.run() }
        } else {
            eventLoop.scheduleTask(in: TimeAmount(wait)) { self.run() }
        }
    }

    /// Takes the frames queued for the socket `id` out of the next run: the socket's
    /// reply, going out now, carries them in its write (the events first, as they came
    /// before it).
    func take(_ id: ObjectIdentifier) -> [ByteBuffer] {
        pending.withLock { $0.sockets.removeValue(forKey: id)?.frames ?? [] }
    }

    private func run() {
        let (sockets, published, traces) = pending.withLock { pending in
            pending.scheduled = false
            let frames = pending.sockets.values.reduce(0) { $0 + $1.frames.count }
            pending.pace.ran(at: .now, deliveries: frames, sockets: pending.sockets.count)
            defer {
                pending.sockets = [:]
                pending.published = [:]
                pending.lastPosition = nil
                pending.traces = []
            }
            return (pending.sockets, pending.published, pending.traces)
        }
        for (socket, frames) in sockets.values {
            metrics.queuedEvents.record(Double(frames.count))
            socket.value.writeEvents(frames)
        }
        let written = ContinuousClock.now
        for start in published.values { metrics.deliverySeconds.record(written - start) }
        for trace in traces { trace.mark(.delivered, at: written) }
    }
}
