import NIOCore
import ParleyCore
import ParleyEngine

/// One IRC connection's end of the pipeline: hands its lines, in order, to the
/// connection's `IRCConnection`, and keeps the clock: the sign-in deadline, a PING at
/// half the ping timeout, and closing a connection silent for the whole of it.
final class IRCChannelHandler: ChannelInboundHandler {
    typealias InboundIn = IRCInbound

    private let gateway: IRCGateway
    private var lines: AsyncStream<(IRCInbound, UInt64)>.Continuation?
    private var lastHeard = NIODeadline.now()
    private var timers: [Scheduled<Void>] = []
    private var pinger: RepeatedTask?

    init(gateway: IRCGateway) {
        self.gateway = gateway
    }

    func channelActive(context: ChannelHandlerContext) {
        let channel = context.channel
        let (writer, executor) = gateway.perLoop(channel.eventLoop)
        let output = IRCOutput(channel: channel, writer: writer)
        guard gateway.opened(channel) else {
            output.send(IRCMessage(command: "ERROR", params: ["Closing link: the server is full"]))
            output.close()
            return
        }
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        // Counted with the address's other connections that have not signed in, the
        // WebSocket's too (`AddressSlots`).
        guard let place = gateway.engine.unsigned.admit(address) else {
            output.send(IRCMessage(command: "ERROR", params: ["Closing link: too many connections from your address have not signed in"]))
            output.close()
            return
        }
        channel.closeFuture.whenComplete { _ in place.release() }
        let connection = IRCConnection(gateway: gateway, output: output, address: address, place: place)
        let (stream, continuation) = AsyncStream.makeStream(of: (IRCInbound, UInt64).self)
        lines = continuation
        let arrivals = gateway.engine.arrivals
        Task(executorPreference: executor) {
            for await (inbound, ticket) in stream {
                await connection.handle(inbound, ticket: ticket)
                arrivals.finish(ticket)
            }
            await connection.closed()
        }
        let configuration = gateway.configuration
        timers.append(
            context.eventLoop.scheduleTask(in: .init(configuration.signInTimeout)) {
                Task {
                    guard await !connection.isRegistered else { return }
                    output.send(IRCMessage(command: "ERROR", params: ["Closing link: sign in within \(configuration.signInTimeout)"]))
                    output.close()
                }
            })
        let timeout = TimeAmount(configuration.pingTimeout)
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        let half = TimeAmount.nanoseconds(timeout.nanoseconds / 2)
        pinger = context.eventLoop.scheduleRepeatedTask(initialDelay: half, delay: half) { _ in
            let handler = this.value
            if NIODeadline.now() - handler.lastHeard >= timeout {
                output.send(IRCMessage(command: "ERROR", params: ["Closing link: ping timeout"]))
                output.close()
            } else {
                output.send(IRCMessage(command: "PING", params: [configuration.serverName]))
            }
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        lastHeard = .now()
        // Numbered as it arrives, among every connection's lines (`ArrivalOrder`).
        let ticket = gateway.engine.arrivals.arrive()
        let handed: Bool
        switch lines?.yield((unwrapInboundIn(data), ticket)) {
        case .enqueued: handed = true
        default: handed = false
        }
        if !handed { gateway.engine.arrivals.finish(ticket) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        for timer in timers { timer.cancel() }
        pinger?.cancel()
        lines?.finish()
        lines = nil
        gateway.closed(context.channel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// Where a connection's lines go: its channel, through its event loop's
/// `IRCLineWriter`. A client that has left `unreadLimit` bytes unread is closed rather
/// than buffered for without bound.
struct IRCOutput: Sendable {
    static let unreadLimit = 4 << 20
    let channel: any Channel
    let writer: IRCLineWriter

    func send(_ message: IRCMessage) {
        send([message])
    }

    /// Lines the connection's own lines caused: written at once.
    func send(_ messages: [IRCMessage]) {
        guard !messages.isEmpty else { return }
        writer.add(Self.serialize(messages), to: channel, paced: false)
    }

    /// An event's lines: written with the loop's next run for deliveries.
    func deliver(_ messages: [IRCMessage]) {
        guard !messages.isEmpty else { return }
        writer.add(Self.serialize(messages), to: channel, paced: true)
    }

    /// An event's lines serialized already (`serialize`), shared with other connections.
    func deliver(serialized lines: ByteBuffer) {
        guard lines.readableBytes > 0 else { return }
        writer.add(lines, to: channel, paced: true)
    }

    /// `messages` as the lines that go on the wire, each with its CRLF.
    static func serialize(_ messages: [IRCMessage]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(messages.count * 64)
        for message in messages {
            buffer.writeString(message.serialized)
            buffer.writeString("\r\n")
        }
        return buffer
    }

    /// Closes the connection once the lines queued before it are written.
    func close() {
        writer.close(channel)
    }
}
