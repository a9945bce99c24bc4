import NIOCore
import ParleyProtocol
import Synchronization

/// The lines on their way to the IRC connections of one event loop. The first line
/// queued since the last run wakes the loop once; that run writes every connection's
/// lines and flushes each once. Lines come from every thread a connection's requests
/// run on (and the event bus delivers a group's message from the sender's), so a
/// message to a channel of 20 costs a wake of each loop and a write per connection for
/// everything queued meanwhile, not a hop and a write per line. Nothing waits on a
/// timer: an idle connection's line goes at once, a busy loop's gather by themselves.
final class IRCLineWriter: Sendable {
    private struct Pending {
        /// Each connection's lines, in the order they came, keyed by its channel.
        var channels: [ObjectIdentifier: (channel: any Channel, lines: [ByteBuffer])] = [:]
        var scheduled = false
    }

    private let eventLoop: any EventLoop
    private let pending = Mutex(Pending())

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    /// Queues `lines` (whole lines with their CRLF) for `channel`, one of this loop's.
    func add(_ lines: ByteBuffer, to channel: any Channel) {
        let schedule = pending.withLock { pending in
            pending.channels[ObjectIdentifier(channel), default: (channel, [])].lines.append(lines)
            guard !pending.scheduled else { return false }
            pending.scheduled = true
            return true
        }
        if schedule { eventLoop.execute { self.run() } }
    }

    private func run() {
        let channels = pending.withLock { pending in
            pending.scheduled = false
            defer { pending.channels = [:] }
            return pending.channels
        }
        for (channel, lines) in channels.values {
            // Past `IRCOutput.unreadLimit` unread: closed rather than buffered for.
            guard channel.isWritable else {
                channel.close(promise: nil)
                continue
            }
            channel.writeAndFlush(lines.joined(), promise: nil)
        }
    }
}
