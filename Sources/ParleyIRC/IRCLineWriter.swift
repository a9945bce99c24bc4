import Logging
import NIOCore
import ParleyLive
import Synchronization

/// The lines on their way to the IRC connections of one event loop. Lines come from
/// every thread a connection's requests run on (and the event bus delivers a group's
/// message from the sender's), and are written in runs on the loop: each connection's
/// lines in the order they came, in one write.
///
/// Two paces, as the WebSocket's replies and events have:
/// - A reply (a numeric, an echo, anything a connection's own line caused) goes out in
///   a run at once, with whatever that connection had queued before it, so a client's
///   lines never change order.
/// - A delivery (another's message, a join, a presence change) waits for the next run,
///   and runs for deliveries average at most one an `interval`; one may come an interval
///   early, so deliveries about that far apart go at once. Under a stream of messages to
///   a group, each connection then gets several in one write instead of a write each.
///   Unlike the WebSocket's events, every run is paced, whatever the traffic
///   (`DeliveryPace(pacedFrom: 0)`): at half a millisecond the gateway's tail at 1,000
///   messages/s is where the WebSocket's is when it paces only busy traffic, and pacing
///   only busy traffic here wrote more often at 2,000 messages/s to 50 members for no
///   shorter tail (docs/performance.md).
final class IRCLineWriter: Sendable {
    private struct Queued {
        let channel: any Channel
        /// The lines in the order they came, in one buffer: the first as it came (often
        /// shared with other connections), the rest written into this connection's copy.
        var lines: ByteBuffer?
        /// A reply is among the lines: they go in the next run at once.
        var urgent = false
        /// The connection closes once its lines are written.
        var closing = false
    }

    private struct Pending {
        /// Each connection's lines, keyed by its channel.
        var channels: [ObjectIdentifier: Queued] = [:]
        /// A run for the urgent connections is queued on the loop.
        var urgentRun = false
        /// A run for everything is queued or scheduled.
        var fullRun = false
        var pace: DeliveryPace
    }

    private let eventLoop: any EventLoop
    private let pending: Mutex<Pending>
    private let logger: Logger

    init(eventLoop: any EventLoop, interval: Duration, logger: Logger) {
        self.eventLoop = eventLoop
        self.logger = logger
        pending = Mutex(Pending(pace: DeliveryPace(interval: interval, pacedFrom: 0)))
    }

    /// Queues `lines` (whole lines with their CRLF) for `channel`, one of this loop's:
    /// a reply goes at once, a delivery (`paced`) with the next run.
    func add(_ lines: ByteBuffer, to channel: any Channel, paced: Bool) {
        queue(channel, paced: paced) { queued in
            if queued.lines == nil {
                queued.lines = lines
            } else {
                queued.lines?.writeImmutableBuffer(lines)
            }
        }
    }

    /// Closes `channel` once the lines queued for it are written.
    func close(_ channel: any Channel) {
        queue(channel, paced: false) { $0.closing = true }
    }

    private func queue(_ channel: any Channel, paced: Bool, _ change: (inout Queued) -> Void) {
        enum Run { case none, urgent, full(after: Duration) }
        let run: Run = pending.withLock { pending in
            change(&pending.channels[ObjectIdentifier(channel), default: Queued(channel: channel)])
            if !paced {
                pending.channels[ObjectIdentifier(channel)]?.urgent = true
                guard !pending.urgentRun else { return .none }
                pending.urgentRun = true
                return .urgent
            }
            guard !pending.fullRun else { return .none }
            pending.fullRun = true
            return .full(after: pending.pace.wait(at: .now))
        }
        switch run {
        case .none: break
        case .urgent: eventLoop.execute { self.run(all: false) }
        case .full(let wait):
            if wait == .zero {
                eventLoop.execute { self.run(all: true) }
            } else {
                eventLoop.scheduleTask(in: TimeAmount(wait)) { self.run(all: true) }
            }
        }
    }

    /// Writes the urgent connections' lines, or (`all`) every connection's.
    private func run(all: Bool) {
        let due = pending.withLock { pending in
            if all {
                pending.fullRun = false
                pending.urgentRun = false
                pending.pace.ran(at: .now)
                defer { pending.channels = [:] }
                return Array(pending.channels.values)
            }
            pending.urgentRun = false
            var due: [Queued] = []
            for (id, queued) in pending.channels where queued.urgent {
                due.append(queued)
                pending.channels[id] = nil
            }
            return due
        }
        for queued in due {
            let channel = queued.channel
            // Lines that came for a connection already closed (for its sendq, say) before
            // its session ended: nobody is left to read them.
            guard channel.isActive else { continue }
            // Past the gateway's `sendQueueBytes` unread: closed rather than buffered for.
            guard channel.isWritable else {
                logger.info(
                    "IRC connection closed: sendq exceeded (the client does not read)",
                    metadata: ["address": "\(channel.remoteAddress?.ipAddress ?? "unknown")", "client": "irc"])
                channel.close(promise: nil)
                continue
            }
            if let lines = queued.lines { channel.writeAndFlush(lines, promise: nil) }
            if queued.closing { channel.close(promise: nil) }
        }
    }
}
