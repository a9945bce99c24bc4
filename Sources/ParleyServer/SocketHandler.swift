import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import ParleyCore
import ParleyEngine
import ParleyLive
import Prometheus
import Synchronization

/// One WebSocket after the upgrade, on its channel's event loop: requests in order, one
/// short task per request while it is answered; events written straight from the bus
/// to the channel; pings, the sign-in deadline and closing on timers of the event loop.
/// An idle socket costs its pipeline and its engine session, and no task.
final class SocketHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Reading pauses while this many requests wait for the one before them.
    private static let waitingLimit = 64

    let server: ParleyServer
    private var limiter: SocketRate
    private let user: SocketUser
    var context: ChannelHandlerContext?
    /// The frame encoder's place in the pipeline: bytes written there skip it.
    private var frameWriter: ChannelHandlerContext?
    private var dispatcher: Dispatcher?
    /// What this socket shares with the others of its event loop: the executor its
    /// requests run on, and the writer its events wait in.
    private var loop: LoopServices?
    /// Request frames waiting for the one before them to be answered, each with its
    /// arrival ticket (`ArrivalOrder`), handed back once answered.
    var waiting = CircularBuffer<(frame: ByteBuffer, ticket: UInt64, trace: StageTrace?)>(initialCapacity: 1)
    var answering = false
    var floodedOut = false  // `flooded()` while a request was being answered: closed once it is
    /// The last request waited for its turn: the client is over its rate. One that then
    /// fills `waitingLimit` is flooding and is closed (`excessFlood`).
    private var overRate = false
    private var heardSincePing = true
    /// A close frame went out; the socket closes when the client answers or soon after.
    var closing = false
    var timers: [Scheduled<Void>] = []
    private var pings: (sweep: PingSweep, slice: Int)?
    /// Event frames held back while the channel is not writable (the client reads
    /// slower than events come), and their size.
    private var unwritten = CircularBuffer<ByteBuffer>(initialCapacity: 1)
    private var unwrittenBytes = 0
    /// When the client last took events off the channel, and the timer that closes a
    /// socket that stopped doing so.
    private var lastDrained = NIODeadline.now()
    private var stallCheck: Scheduled<Void>?
    /// When the session's token expires: the next ping after it closes the socket (a
    /// timer of its own per socket cost an idle session about 250 bytes).
    private var expiresAt: Date?
    /// Closes a socket that has not signed in in time; gone once it has.
    private var signInDeadline: Scheduled<Void>?
    /// Why the socket ended, for the log.
    var endReason = "connection dropped"
    private var address = "unknown"
    /// How the client named itself, for its sessions list.
    private let client: String
    /// Nil: the client's address is the peer's; else the one a trusted proxy forwarded.
    private let forwardedAddress: String?
    /// Refused for its address before it could be let in: closed at once with 1008.
    private let refusal: String?

    init(server: ParleyServer, client: String, place: AddressSlots.Slot?, forwardedAddress: String? = nil, refusal: String? = nil) {
        self.server = server
        self.client = client
        self.user = SocketUser(place: place)
        self.forwardedAddress = forwardedAddress
        self.refusal = refusal
        self.limiter = SocketRate(server.socketRate.load(ordering: .relaxed))
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let channel = context.channel
        // Events bypass the frame encoder: each is a finished frame, shared by every
        // socket that gets it (see `EventFrameBytes.frame(of:)`).
        frameWriter = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        if frameWriter == nil { context.close(promise: nil) }
        if let refusal {
            server.metrics.refusedPerAddress.increment()
            sendClose(.policyViolation, reason: refusal)
            return
        }
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loop = server.perLoop(context.eventLoop)
        self.loop = loop
        let writer = loop.writer
        let id = ObjectIdentifier(self)
        let eventLoop = context.eventLoop
        address = forwardedAddress ?? channel.remoteAddress?.ipAddress ?? "unknown"
        server.logger.info("connection opened", metadata: ["address": "\(address)"])
        let session = server.engine.connect(
            address: address, client: client,
            deliver: { event in writer.add(event.encoded(EventFrameBytes.frame(of:)).bytes, to: this, id: id, position: event.position) },
            ended: { reason in
                let code = [.accountSuspended, .serverBanned].contains(reason.code) ? Self.accountRemoved : Self.sessionEnded
                eventLoop.execute { this.value.sendClose(code, reason: reason.message) }
            })
        dispatcher = Dispatcher(session: session, epoch: server.engine.eventEpoch, logger: server.logger)
        server.metrics.anonymousConnections.increment()
        server.sockets.add(channel)

        let user = user
        let signInTimeout = server.configuration.signInTimeout
        signInDeadline = context.eventLoop.scheduleTask(in: .init(signInTimeout)) {
            this.value.signInDeadline = nil
            guard user.value.withLock({ $0 }) == nil else { return }
            this.value.sendClose(.policyViolation, reason: "sign in within \(signInTimeout)")
        }
        pings = (loop.pings, loop.pings.add(self))
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        frameWriter = nil
    }

    /// Writes `frames` (finished event frames, in order) in one write and flushes, when
    /// the channel is writable; otherwise they wait here until the client has read what
    /// went before (see `checkHeld`). One write of them all: a write through the pipeline
    /// costs more than copying a few frames, and the kernel gets one buffer, not a list.
    func writeEvents(_ frames: [ByteBuffer]) {
        guard let frameWriter, let context, !closing, !frames.isEmpty else { return }
        if unwritten.isEmpty, context.channel.isWritable {
            frameWriter.write(NIOAny(EventFrameBytes.joined(frames)), promise: nil)
            delivered(frames.count, by: frameWriter)
        } else {
            for frame in frames {
                unwritten.append(frame)
                unwrittenBytes += frame.readableBytes
            }
            checkHeld()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let frameWriter, !closing {
            lastDrained = .now()
            var written = 0
            var released = 0
            while context.channel.isWritable, let frame = unwritten.popFirst() {
                frameWriter.write(NIOAny(frame), promise: nil)
                written += 1
                released += frame.readableBytes
            }
            unwrittenBytes -= released
            if written > 0 { delivered(written, by: frameWriter) }
        }
        context.fireChannelWritabilityChanged()
    }

    private func delivered(_ count: Int, by frameWriter: ChannelHandlerContext) {
        frameWriter.flush()
        lastDrained = .now()
        server.metrics.delivered.increment(by: Int64(count))
    }

    /// A socket whose held events pass `maxUnwrittenBytes` and that reads none of them
    /// for `slowReaderTimeout` is closed with 4008; so is one past `hardUnwrittenLimit`
    /// at once. A client that keeps reading, however far behind (a resume of a long
    /// backlog), is left to catch up. Held frames are the same buffers the bus and the
    /// other sockets hold, so what a held event costs is a reference.
    private func checkHeld() {
        guard let context, !closing else { return }
        let soft = server.configuration.maxUnwrittenBytes
        if unwrittenBytes > Self.hardUnwrittenLimit(soft) {
            closeTooSlow()
        } else if unwrittenBytes > soft, stallCheck == nil {
            let timeout = TimeAmount(server.configuration.slowReaderTimeout)
            let this = NIOLoopBound(self, eventLoop: context.eventLoop)
            stallCheck = context.eventLoop.scheduleTask(deadline: lastDrained + timeout) {
                let handler = this.value
                handler.stallCheck = nil
                if handler.unwrittenBytes > soft, NIODeadline.now() - handler.lastDrained >= timeout {
                    handler.closeTooSlow()
                } else {
                    handler.checkHeld()
                }
            }
        }
    }

    static func hardUnwrittenLimit(_ soft: Int) -> Int { max(soft &* 16, 64 << 20) }

    func channelInactive(context: ChannelHandlerContext) {
        if let pings { pings.sweep.remove(self, slice: pings.slice) }
        pings = nil
        for timer in timers { timer.cancel() }
        timers = []
        signInDeadline?.cancel()
        signInDeadline = nil
        stallCheck?.cancel()
        stallCheck = nil
        for (_, ticket, _) in waiting { server.engine.arrivals.finish(ticket) }
        waiting.removeAll()
        dropUnwritten()
        let signedIn = user.value.withLock { $0 }.map { "\($0)" } ?? "none"
        server.logger.info("connection closed: \(endReason)", metadata: ["address": "\(address)", "user": "\(signedIn)"])
        if let session = dispatcher?.session {
            let (server, user, channel) = (server, user, context.channel)
            Task {
                await session.close()
                if let id = user.value.withLock({ $0 }) { server.release(id) }
                server.metrics.anonymousConnections.decrement()
                server.sockets.remove(channel)
            }
        }
        dispatcher = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        heardSincePing = true
        switch frame.opcode {
        case .text, .binary:
            guard !closing, !floodedOut else { return }
            waiting.append((frame.unmaskedData, server.engine.arrivals.arrive(), StageLog.shared?.begin()))
            if waiting.count >= Self.waitingLimit {
                if overRate {
                    flooded()
                    return
                }
                context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
            }
            if !answering { answerNext() }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            if closing {
                context.close(promise: nil)
            } else {
                // Echo the client's code (`FrameRules` checked it may be sent), then close.
                closing = true
                var data = frame.unmaskedData
                let code = data.readWebSocketErrorCode() ?? .normalClosure
                endReason = "closed by the client (\(UInt16(webSocketErrorCode: code)))"
                let echo = WebSocketFrame(
                    fin: true, opcode: .connectionClose,
                    data: EventFrameBytes.closeData(code, reason: nil, allocator: context.channel.allocator))
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(echo)).whenComplete { _ in channel.close(promise: nil) }
            }
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let broken = event as? FrameRules.FrameRuleBroken {
            endReason = "closed by the server (\(broken.reason))"
        } else if event is ServerStopping {
            sendClose(.goingAway, reason: "server shutting down", within: .seconds(1))
        } else if case .inputClosed? = event as? ChannelEvent {
            // The client's end is shut (Hummingbird lets a connection stay half-open):
            // with or without a close frame, it is gone, and so is its session.
            if !closing { endReason = "the client went away without a close frame" }
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketFrameAggregator.Error {
            switch error {
            case .accumulatedFrameSizeIsTooLarge, .tooManyFragments:
                // A message in fragments larger than a frame may be.
                sendClose(.messageTooLarge, reason: nil)
            default:
                // A continuation with nothing to continue, or a new message before the
                // last one's final fragment.
                sendClose(.protocolError, reason: "fragments out of order")
            }
        } else {
            context.close(promise: nil)
        }
    }

    /// Answers the oldest waiting request in a task of its own, then the next one.
    private func answerNext() {
        guard let context, let dispatcher, let loop else { return }
        guard !closing, let (frame, ticket, trace) = waiting.popFirst() else {
            answering = false
            return
        }
        answering = true
        if waiting.count == Self.waitingLimit / 2 { context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in } }
        let (server, user) = (server, user)
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        let executor = loop.executor
        let answer: @Sendable () -> Void = {
            Task(executorPreference: executor) {
                trace?.mark(.task)
                let body = Data(frame.readableBytesView)
                let reply = await StageTrace.$current.withValue(trace) { await server.handle(body, dispatcher: dispatcher, user: user) }
                server.engine.arrivals.finish(ticket)
                eventLoop.execute { this.value.answered(reply, trace: trace) }
            }
        }
        // Over the rate, a request waits its turn rather than being refused; the ones
        // behind it wait too, and reading stops once `waitingLimit` do.
        // The socket's own rate, and its account's over all its sockets.
        let account = user.value.withLock { $0 }.map { server.accountPace.takeOwing(for: $0, at: .now) } ?? .zero
        let wait = max(limiter.take(following: server.socketRate.load(ordering: .relaxed)), account)
        overRate = wait > .zero
        if overRate, waiting.count + 1 >= Self.waitingLimit {
            server.engine.arrivals.finish(ticket)
            closeForFlooding()
            return
        }
        guard overRate else { return answer() }
        eventLoop.scheduleTask(in: TimeAmount(wait)) { answer() }
    }

    private func answered(_ reply: (frame: Data, close: Bool, sessionChanged: Bool), trace: StageTrace?) {
        defer { trace?.mark(.replied) }
        guard let context else { return }
        if let frameWriter {
            // A finished frame, as events are: past the frame encoder, in one buffer.
            let frame = EventFrameBytes.textFrame(reply.frame)
            // Events queued for this socket go with it, in the same write, rather than
            // in one of their own a moment later.
            let events = !closing && unwritten.isEmpty && context.channel.isWritable ? loop?.writer.take(ObjectIdentifier(self)) ?? [] : []
            if events.isEmpty {
                frameWriter.writeAndFlush(NIOAny(frame), promise: nil)
            } else {
                frameWriter.write(NIOAny(EventFrameBytes.joined(events, then: frame)), promise: nil)
                delivered(events.count, by: frameWriter)
            }
        } else {
            let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: reply.frame))
            context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        }
        if reply.sessionChanged { noteExpiry() }
        if reply.close {
            sendClose(.policyViolation, reason: "too many sockets for this user")
        }
        if floodedOut { return closeForFlooding() }
        answerNext()
    }

    func dropUnwritten() {
        unwritten.removeAll()
        unwrittenBytes = 0
    }

    /// Notes when the session's token expires (after a reply that signed in, resumed or
    /// signed out); once signed in, the sign-in deadline is no longer needed.
    private func noteExpiry() {
        expiresAt = dispatcher?.session.expiresAt
        if expiresAt != nil {
            signInDeadline?.cancel()
            signInDeadline = nil
        }
    }

    func ping() {
        guard let context, !closing else { return }
        if let expiresAt, expiresAt <= Date() {
            sendClose(Self.sessionEnded, reason: "the session expired; sign in again")
            return
        }
        guard heardSincePing else {
            // Silent for a whole ping interval: gone without saying goodbye.
            endReason = "no answer to pings"
            context.close(promise: nil)
            return
        }
        heardSincePing = false
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())), promise: nil)
    }
}
