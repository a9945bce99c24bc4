import Foundation
import NIOCore
import NIOWebSocket
import ParleyCore
import ParleyEngine
import ServiceLifecycle
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

    private let server: ParleyServer
    private let limiter: TokenBucket
    private let user = SocketUser()
    private var context: ChannelHandlerContext?
    /// The frame encoder's place in the pipeline: bytes written there skip it.
    private var frameWriter: ChannelHandlerContext?
    private var dispatcher: Dispatcher?
    /// Request frames waiting for the one before them to be answered.
    private var waiting = CircularBuffer<ByteBuffer>()
    private var answering = false
    private var heardSincePing = true
    /// A close frame went out; the socket closes when the client answers or soon after.
    private var closing = false
    private var timers: [Scheduled<Void>] = []
    private var pinger: RepeatedTask?

    init(server: ParleyServer) {
        self.server = server
        let rate = server.configuration.requestsPerSecond
        self.limiter = TokenBucket(perSecond: rate, burst: rate * 2)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let channel = context.channel
        // Events bypass the frame encoder: each is a finished frame, shared by every
        // socket that gets it (see `ParleyServer.frame(of:)`).
        frameWriter = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        if frameWriter == nil { context.close(promise: nil) }
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        let (writer, id) = (server.eventWriter(for: context.eventLoop), ObjectIdentifier(self))
        let session = server.engine.connect(address: channel.remoteAddress?.ipAddress ?? "unknown") { event in
            writer.add(event.encoded(ParleyServer.frame(of:)).bytes, to: this, id: id)
        }
        dispatcher = Dispatcher(session: session, epoch: server.engine.eventEpoch)
        server.metrics.connections.increment()
        server.sockets.add(channel)

        let user = user
        let signInTimeout = server.configuration.signInTimeout
        timers.append(
            context.eventLoop.scheduleTask(in: .init(signInTimeout)) {
                guard user.value.withLock({ $0 }) == nil else { return }
                this.value.sendClose(.policyViolation, reason: "sign in within \(signInTimeout)")
            })
        // A client that answers nothing between two pings is gone.
        let half = TimeAmount(server.configuration.pingTimeout / 2)
        pinger = context.eventLoop.scheduleRepeatedTask(initialDelay: half, delay: half) { _ in
            this.value.ping()
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        frameWriter = nil
    }

    /// Writes `frames` (finished event frames, in order) and flushes once.
    fileprivate func writeEvents(_ frames: [ByteBuffer]) {
        guard let frameWriter, !closing else { return }
        for frame in frames { frameWriter.write(NIOAny(frame), promise: nil) }
        frameWriter.flush()
        server.metrics.delivered.increment(by: Int64(frames.count))
    }

    func channelInactive(context: ChannelHandlerContext) {
        pinger?.cancel()
        for timer in timers { timer.cancel() }
        timers = []
        waiting.removeAll()
        if let session = dispatcher?.session {
            let (server, user, channel) = (server, user, context.channel)
            Task {
                await session.close()
                if let id = user.value.withLock({ $0 }) { server.release(id) }
                server.metrics.connections.decrement()
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
            guard !closing else { return }
            waiting.append(frame.unmaskedData)
            if waiting.count >= Self.waitingLimit { context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in } }
            if !answering { answerNext() }
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            if closing {
                context.close(promise: nil)
            } else {
                // Echo the client's code, then close.
                closing = true
                var data = frame.unmaskedData
                let code = data.readWebSocketErrorCode() ?? .normalClosure
                let echo = WebSocketFrame(fin: true, opcode: .connectionClose, data: Self.closeData(code, reason: nil, allocator: context.channel.allocator))
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(echo)).whenComplete { _ in channel.close(promise: nil) }
            }
        default:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ServerStopping {
            sendClose(.goingAway, reason: "server shutting down", within: .seconds(1))
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOWebSocketFrameAggregator.Error {
            // A message in fragments larger than a frame may be.
            sendClose(.messageTooLarge, reason: nil)
        } else {
            context.close(promise: nil)
        }
    }

    /// Answers the oldest waiting request in a task of its own, then the next one.
    private func answerNext() {
        guard let context, let dispatcher else { return }
        guard !closing, let frame = waiting.popFirst() else {
            answering = false
            return
        }
        answering = true
        if waiting.count == Self.waitingLimit / 2 { context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in } }
        let (server, limiter, user) = (server, limiter, user)
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        let eventLoop = context.eventLoop
        Task {
            let reply = await server.handle(Data(frame.readableBytesView), dispatcher: dispatcher, limiter: limiter, user: user)
            eventLoop.execute { this.value.answered(reply) }
        }
    }

    private func answered(_ reply: (frame: Data, close: Bool)) {
        guard let context else { return }
        let frame = WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: reply.frame))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        if reply.close {
            sendClose(.policyViolation, reason: "too many sockets for this user")
        }
        answerNext()
    }

    private func ping() {
        guard let context, !closing else { return }
        guard heardSincePing else {
            // Silent for a whole ping interval: gone without saying goodbye.
            context.close(promise: nil)
            return
        }
        heardSincePing = false
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .ping, data: ByteBuffer())), promise: nil)
    }

    /// Sends a close frame; the socket closes when the client answers, or after `within`.
    private func sendClose(_ code: WebSocketErrorCode, reason: String?, within: TimeAmount = .seconds(2)) {
        guard let context, !closing else { return }
        closing = true
        let frame = WebSocketFrame(fin: true, opcode: .connectionClose, data: Self.closeData(code, reason: reason, allocator: context.channel.allocator))
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        let channel = context.channel
        timers.append(context.eventLoop.scheduleTask(in: within) { channel.close(promise: nil) })
    }

    private static func closeData(_ code: WebSocketErrorCode, reason: String?, allocator: ByteBufferAllocator) -> ByteBuffer {
        var data = allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        data.write(webSocketErrorCode: code)
        if let reason { data.writeString(String(reason.prefix(120))) }
        return data
    }
}

/// The events on their way to the sockets of one event loop. The first event queued
/// since the last run schedules one task on the loop, which writes every socket's
/// events, each socket's in one flush: a message to a group of 50 costs a task per
/// event loop, not one per member, and the event bus (which delivers under its lock) is
/// held no longer than it takes to queue. Runs are at least `interval` apart, so under a
/// steady stream of events each socket write carries several (at 2,000 messages/s to a
/// group of 50, the socket writes were most of the server's CPU).
final class EventWriter: Sendable {
    private struct Pending {
        /// Each socket's frames, in the order they came; keyed by the socket's handler.
        var sockets: [ObjectIdentifier: (socket: NIOLoopBound<SocketHandler>, frames: [ByteBuffer])] = [:]
        var scheduled = false
        var lastRun = NIODeadline.distantPast
    }

    private let eventLoop: any EventLoop
    private let interval: TimeAmount
    private let pending = Mutex(Pending())

    init(eventLoop: any EventLoop, interval: TimeAmount) {
        self.eventLoop = eventLoop
        self.interval = interval
    }

    /// Queues `frame` for `socket` (whose handler is `id`).
    func add(_ frame: ByteBuffer, to socket: NIOLoopBound<SocketHandler>, id: ObjectIdentifier) {
        let schedule: NIODeadline? = pending.withLock { pending in
            pending.sockets[id, default: (socket, [])].frames.append(frame)
            guard !pending.scheduled else { return nil }
            pending.scheduled = true
            return pending.lastRun + interval
        }
        guard let schedule else { return }
        if schedule <= .now() {
            eventLoop.execute { self.run() }
        } else {
            eventLoop.scheduleTask(deadline: schedule) { self.run() }
        }
    }

    private func run() {
        let sockets = pending.withLock { pending in
            pending.scheduled = false
            pending.lastRun = .now()
            defer { pending.sockets = [:] }
            return pending.sockets
        }
        for (socket, frames) in sockets.values { socket.value.writeEvents(frames) }
    }
}

/// Told to every socket when the server stops.
struct ServerStopping: Sendable {}

/// The live sockets, so stopping the server can close each with a close frame and wait
/// until their sessions have ended (before the database closes).
final class SocketRegistry: Service, Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var drained: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func add(_ channel: any Channel) {
        state.withLock { $0.channels[ObjectIdentifier(channel)] = channel }
    }

    func remove(_ channel: any Channel) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.channels[ObjectIdentifier(channel)] = nil
            guard state.channels.isEmpty else { return [] }
            defer { state.drained = [] }
            return state.drained
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for the server to stop, then closes every socket and waits until all have ended.
    func run() async throws {
        guard (try? await gracefulShutdown()) != nil else { return }
        for channel in state.withLock({ Array($0.channels.values) }) {
            channel.pipeline.fireUserInboundEventTriggered(ServerStopping())
        }
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.channels.isEmpty { return true }
                state.drained.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
