import Logging
import NIOCore
import ParleyCore
import ParleyEngine
import ParleyLive

/// One IRC connection's end of the pipeline: hands its lines, in order, to the
/// connection's `IRCConnection`, at the pace its flood control allows, and keeps the
/// clock: the sign-in deadline, a PING at half the ping timeout, and closing a
/// connection silent for the whole of it.
final class IRCChannelHandler: ChannelInboundHandler {
    typealias InboundIn = IRCInbound

    /// What the connection's task is handed: a line with its arrival ticket, or the
    /// end a flood brought, which it answers after every line handed before it.
    enum Handed: Sendable {
        case line(IRCInbound, UInt64)
        case excessFlood
    }

    private let gateway: IRCGateway
    private var lines: AsyncStream<Handed>.Continuation?
    private var lastHeard = NIODeadline.now()
    private var timers: [Scheduled<Void>] = []
    private var pinger: RepeatedTask?
    /// Lines over the connection's rate wait here for their turn (`FloodControl`).
    private var flood: FloodControl<IRCInbound>
    /// What the lines of an open draft/multiline batch may still take without cost.
    private var batchAllowance = BatchAllowance()
    private var release: Scheduled<Void>?
    private var output: IRCOutput?
    private var connection: IRCConnection?

    init(gateway: IRCGateway) {
        self.gateway = gateway
        flood = FloodControl(limits: gateway.flood)
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
        self.output = output
        self.connection = connection
        let (stream, continuation) = AsyncStream.makeStream(of: Handed.self)
        lines = continuation
        let arrivals = gateway.engine.arrivals
        Task(executorPreference: executor) {
            for await handed in stream {
                switch handed {
                case .line(let inbound, let ticket):
                    await connection.handle(inbound, ticket: ticket)
                    arrivals.finish(ticket)
                case .excessFlood:
                    // Every line handed before the cut-off has been handled and answered
                    // (its echo or its refusal): the client knows which of its lines landed.
                    output.send(IRCMessage(command: "ERROR", params: ["Closing link: Excess Flood"]))
                    output.close()
                }
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
        guard lines != nil else { return }
        let inbound = unwrapInboundIn(data)
        // Signed in: the account's other connections share its pace from now on.
        if flood.account == nil, gateway.accountPace.isLimited, let me = connection?.view.me {
            flood.account = (gateway.accountPace, me.id)
        }
        if flood.limits.perSecond != gateway.linesPerSecond { flood.change(to: gateway.flood) }
        // A multiline batch counts as one message: its opening line pays, its lines and
        // its end pass free while none waits, within what one batch holds.
        if case .line(let text) = inbound, batchAllowance.passes(text, nothingWaiting: flood.waiting == 0) {
            hand(inbound)
            return
        }
        switch flood.arrive(inbound, bytes: inbound.bytes, at: .now) {
        case .handle(let line):
            hand(line)
        case .held(let after, let warn):
            if warn, let output {
                let limits = flood.limits
                let account = flood.account.map { " (\($0.pace.perSecond) over all your connections)" } ?? ""
                output.send(
                    IRCMessage(
                        source: gateway.configuration.serverName, command: "NOTICE",
                        params: [
                            connection?.view.me?.handle ?? "*",
                            "flood: you are sending more than \(limits.perSecond) lines a second\(account); your lines wait their turn, "
                                + "and the connection closes past \(limits.heldLines) waiting",
                        ]))
            }
            scheduleRelease(after: after, on: context.eventLoop)
        case .excess:
            excessFlood()
        }
    }

    /// Hands a line on to be handled. It is numbered now, among every connection's lines
    /// (`ArrivalOrder`): a line held back by flood control has not yet arrived, so another
    /// client's PING does not wait for a flooder's queue.
    private func hand(_ line: IRCInbound) {
        let ticket = gateway.engine.arrivals.arrive()
        let handed: Bool
        switch lines?.yield(.line(line, ticket)) {
        case .enqueued: handed = true
        default: handed = false
        }
        if !handed { gateway.engine.arrivals.finish(ticket) }
    }

    private func scheduleRelease(after wait: Duration, on eventLoop: any EventLoop) {
        guard release == nil else { return }
        let this = NIOLoopBound(self, eventLoop: eventLoop)
        release = eventLoop.scheduleTask(in: .init(wait)) {
            let handler = this.value
            handler.release = nil
            let (due, next) = handler.flood.release(at: .now)
            for line in due { handler.hand(line) }
            if let next { handler.scheduleRelease(after: next, on: eventLoop) }
        }
    }

    /// Past the hard bound: the connection ends, as an IRC server ends it. Lines still
    /// waiting their turn are dropped unhandled; those already handed on are handled and
    /// answered before the `ERROR`, which the connection's task sends after them.
    private func excessFlood() {
        release?.cancel()
        release = nil
        lines?.yield(.excessFlood)
        lines?.finish()
        lines = nil
        gateway.logger.notice(
            "IRC connection closed: excess flood",
            metadata: ["nick": "\(connection?.view.me?.handle ?? "*")", "waiting": "\(flood.waiting)"])
    }

    func channelInactive(context: ChannelHandlerContext) {
        for timer in timers { timer.cancel() }
        release?.cancel()
        release = nil
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
/// `IRCLineWriter`. A client that has left the gateway's `sendQueueBytes` unread is
/// closed rather than buffered for without bound.
struct IRCOutput: Sendable {
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

/// The free passage of a draft/multiline batch's lines through flood control: granted
/// by the line that opens one, for as many lines and bytes as a batch may hold (a line
/// of it costs its text and what wraps it), and spent by its lines and its end.
struct BatchAllowance {
    private var lines = 0
    private var bytes = 0

    /// Whether `line` passes free; a line opening a batch grants the allowance (and pays).
    mutating func passes(_ line: String, nothingWaiting: Bool) -> Bool {
        let (tags, command) = Self.split(line)
        if command.hasPrefix("BATCH +") {
            (lines, bytes) = (MultilineDraft.maxLines + 1, MultilineDraft.maxBytes + (MultilineDraft.maxLines + 1) * 200)
            return false
        }
        let inBatch = tags.hasPrefix("@batch=") || tags.contains(";batch=")
        guard nothingWaiting, inBatch || command.hasPrefix("BATCH -"), lines > 0, bytes >= line.utf8.count else { return false }
        lines -= 1
        bytes -= line.utf8.count
        if !inBatch { (lines, bytes) = (0, 0) }
        return true
    }

    /// A line's tags (empty without) and what follows them, its command first.
    private static func split(_ line: String) -> (tags: Substring, command: Substring) {
        guard line.hasPrefix("@"), let space = line.firstIndex(of: " ") else { return ("", line[...]) }
        return (line[..<space], line[line.index(after: space)...].drop { $0 == " " })
    }
}
