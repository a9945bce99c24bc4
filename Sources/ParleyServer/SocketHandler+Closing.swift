import NIOCore
import NIOWebSocket
import ParleyCore
import ParleyEngine
import Prometheus
import Synchronization

/// Why Parley closes a socket of its own accord: the codes (4000–4999, which RFC 6455
/// leaves to applications; docs/protocol.md lists them for clients) and the closings
/// that count themselves in the metrics.
extension SocketHandler {
    /// The close code of a socket whose session was signed out, revoked or expired.
    static let sessionEnded = WebSocketErrorCode.unknown(4001)
    /// The server's operators suspended or banned the account: signing in again will not do.
    static let accountRemoved = WebSocketErrorCode.unknown(4003)
    /// The close code of a socket that does not read its events.
    static let tooSlow = WebSocketErrorCode.unknown(4008)
    /// The close code of a socket that sent `waitingLimit` requests ahead while over its
    /// rate (IRC's "Excess Flood").
    static let excessFlood = WebSocketErrorCode.unknown(4029)

    /// Events pile up unread: closed, with what was held for it dropped.
    func closeTooSlow() {
        server.metrics.slowClosed.increment()
        dropUnwritten()
        sendClose(Self.tooSlow, reason: "events are not being read; reconnect and resume")
    }

    /// `waitingLimit` requests ahead while over its rate: the waiting ones are dropped
    /// unhandled, the one being answered (if any) is answered, and then the socket closes,
    /// so a client knows which of its requests were done.
    func flooded() {
        for (_, ticket, _) in waiting { server.engine.arrivals.finish(ticket) }
        waiting.removeAll()
        guard answering else { return closeForFlooding() }
        floodedOut = true
    }

    /// Closes the socket as IRC's Excess Flood closes a connection.
    func closeForFlooding() {
        server.metrics.count(.rateLimited)
        sendClose(Self.excessFlood, reason: "excess flood: more than \(server.socketRate.load(ordering: .relaxed)) requests a second")
    }

    /// Sends a close frame; the socket closes when the client answers, or `within` after
    /// the frame has gone out: a slow reader still has events ahead of it. One that
    /// never reads them is closed after the configuration's `closeLimit` all the same.
    func sendClose(_ code: WebSocketErrorCode, reason: String?, within: TimeAmount = .seconds(2)) {
        guard let context, !closing else { return }
        closing = true
        endReason = "closed by the server (\(UInt16(webSocketErrorCode: code))\(reason.map { ": " + $0 } ?? ""))"
        let frame = WebSocketFrame(
            fin: true, opcode: .connectionClose, data: EventFrameBytes.closeData(code, reason: reason, allocator: context.channel.allocator)
        )
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(frame)).whenComplete { _ in
            channel.eventLoop.scheduleTask(in: within) { channel.close(promise: nil) }
        }
        timers.append(context.eventLoop.scheduleTask(in: TimeAmount(server.configuration.closeLimit)) { channel.close(promise: nil) })
    }
}

/// A socket's own request rate, following the server's as a reload changes it
/// (`ParleyServer.socketRate`): bursts of twice the rate.
struct SocketRate {
    private(set) var perSecond: Int
    private var bucket: TokenBucket

    init(_ perSecond: Int) {
        self.perSecond = perSecond
        bucket = TokenBucket(perSecond: perSecond, burst: perSecond.multipliedReportingOverflow(by: 2).partialValue)
    }

    /// Takes a request's token at the server's rate now; how long the request waits.
    mutating func take(following rate: Int) -> Duration {
        if rate != perSecond { self = SocketRate(rate) }
        return bucket.take()
    }
}
