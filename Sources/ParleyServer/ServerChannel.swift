import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket
import ParleyEngine
import Prometheus
import Synchronization

/// One accepted connection: HTTP/1.1 for health, metrics and media, or a WebSocket
/// when it asks to upgrade on `/v1/ws`.
///
/// An upgraded socket is served by its channel pipeline (`SocketHandler`) and holds no
/// task while it is idle: the connection's task ends at the upgrade. Hummingbird's own
/// WebSocket channel keeps that task, its async frames and a task group alive for the
/// life of the socket, which cost more than the whole memory budget of an idle session.
struct ServerChannel: ServerChildChannel, HTTPChannelHandler {
    enum Upgrade: Sendable {
        case webSocket
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgrade: EventLoopFuture<Upgrade>
        let channel: any Channel
    }

    static let socketPath = "/v1/ws"
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 64 * 1024)

    let responder: HTTPChannelHandler.Responder
    let server: ParleyServer

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let server = server
        let open = server.openConnections.wrappingAdd(1, ordering: .relaxed).newValue
        channel.closeFuture.whenComplete { _ in server.openConnections.wrappingSubtract(1, ordering: .relaxed) }
        guard open <= server.configuration.maxConnections else {
            server.metrics.refusedConnections.increment()
            return Self.refuse(channel, "503 Service Unavailable", body: "")
        }
        // One address may hold only so many connections that have not signed in
        // (`AddressSlots`): it cannot fill the cap above and keep others out.
        // A trusted proxy's connections are its clients': they are counted by the
        // address it forwards, once the upgrade names it.
        let peer = channel.remoteAddress?.ipAddress ?? "unknown"
        let proxied = server.configuration.trustedProxies.contains(peer)
        let place: AddressSlots.Slot?
        if proxied {
            place = nil
        } else {
            guard let admitted = server.engine.unsigned.admit(peer) else {
                server.metrics.refusedPerAddress.increment()
                return Self.refuse(channel, "429 Too Many Requests", body: Self.tooMany, retryAfter: 10)
            }
            place = admitted
            channel.closeFuture.whenComplete { _ in admitted.release() }
        }
        return channel.eventLoop.makeCompletedFuture {
            // A socket keeps its receive buffer between reads: NIO's first guess, 2 KiB,
            // was a sixth of an idle session. Requests are small; it grows for big ones.
            // 512 bytes hold an upgrade request: with 256, the buffer grew at once and
            // NIO's pool kept the first one too (0.4 KiB more per idle session).
            try channel.syncOptions?.setOption(ChannelOptions.recvAllocator, value: Self.receiveBuffers)
            let upgrader = NIOTypedWebSocketServerUpgrader<Upgrade>(
                maxFrameSize: server.configuration.maxFrameSize,
                // `FrameRules` answers the decoder's errors: one handler fewer a socket.
                enableAutomaticErrorHandling: false,
                // `UpgradeCheck` has answered upgrades to any other path already.
                shouldUpgrade: { channel, _ in channel.eventLoop.makeSucceededFuture(HTTPHeaders()) },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        let maxSize = server.configuration.maxFrameSize
                        // No HTTP parser is left to fail, and frames need not pass it.
                        try channel.pipeline.syncOperations.removeHandler(
                            context: channel.pipeline.syncOperations.context(handlerType: ParserErrorCloser.self), promise: nil)
                        try channel.pipeline.syncOperations.addHandler(FrameRules())
                        try channel.pipeline.syncOperations.addHandler(
                            NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256, maxAccumulatedFrameSize: maxSize))
                        var (slot, forwarded, refusal) = (place, String?.none, String?.none)
                        if proxied, let client = Self.forwardedAddress(head) {
                            forwarded = client
                            slot = server.engine.unsigned.admit(client)
                            if let slot { channel.closeFuture.whenComplete { _ in slot.release() } } else { refusal = Self.tooMany }
                        }
                        try channel.pipeline.syncOperations.addHandler(
                            SocketHandler(
                                server: server, client: Self.clientName(of: head), place: slot, forwardedAddress: forwarded,
                                refusal: refusal))
                        return .webSocket
                    }
                })
            let upgrades = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandler(
                            HTTPConnectionStateHandler(idleTimeout: server.configuration.handshakeTimeout, logger: logger))
                        return .http(
                            try NIOAsyncChannel(
                                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true)))
                    }
                })
            var pipeline = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgrades)
            pipeline.enablePipelining = false  // NIOAsyncChannel serves one request at a time
            // A request the parser refuses (garbage, an HTTP/2 preface, an oversized
            // header, conflicting lengths) is answered 400 and closed.
            pipeline.enableErrorHandling = true
            pipeline.enableResponseHeaderValidation = false  // HTTPTypes validates them
            let upgrade = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: pipeline)
            // A malformed upgrade is answered before the upgrader sees it (see `UpgradeCheck`).
            let upgradeHandler = try channel.pipeline.syncOperations.handler(type: NIOTypedHTTPServerUpgradeHandler<Upgrade>.self)
            try channel.pipeline.syncOperations.addHandler(ParserErrorCloser(), position: .before(upgradeHandler))
            try channel.pipeline.syncOperations.addHandler(UpgradeCheck(), position: .before(upgradeHandler))
            // Until the first request head is read, the connection has `handshakeTimeout`.
            let deadline = channel.eventLoop.scheduleTask(in: TimeAmount(server.configuration.handshakeTimeout)) {
                server.metrics.handshakeTimeouts.increment()
                channel.close(promise: nil)
            }
            upgrade.whenComplete { _ in deadline.cancel() }
            return Value(upgrade: upgrade, channel: channel)
        }
    }

    static let tooMany = "too many connections from your address have not signed in"

    /// The client a trusted proxy names: the last address of `X-Forwarded-For`, the one
    /// the proxy itself added (those before it are the client's word).
    static func forwardedAddress(_ head: HTTPRequestHead) -> String? {
        lastForwarded(head.headers["x-forwarded-for"].last)
    }

    /// The last address of an `X-Forwarded-For` value, if it reads as one.
    static func lastForwarded(_ header: String?) -> String? {
        guard let header, let last = header.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
            !last.isEmpty, last.count <= 64, last.allSatisfy({ $0.isHexDigit || $0 == "." || $0 == ":" })
        else { return nil }
        return last
    }

    /// Answers `status` on a connection let no further and closes it.
    static func refuse(_ channel: any Channel, _ status: String, body: String, retryAfter: Int? = nil) -> EventLoopFuture<Value> {
        let retry = retryAfter.map { "Retry-After: \($0)\r\n" } ?? ""
        let response =
            "HTTP/1.1 \(status)\r\nConnection: close\r\n\(retry)Content-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        channel.writeAndFlush(ByteBuffer(string: response)).whenComplete { _ in channel.close(promise: nil) }
        return channel.eventLoop.makeSucceededFuture(
            Value(upgrade: channel.eventLoop.makeFailedFuture(ConnectionRefused()), channel: channel))
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgrade.get() {
            case .webSocket: return
            case .http(let channel): await handleHTTP(asyncChannel: channel, logger: logger)
            }
        } catch {
            logger.debug("connection ended before its first request: \(error)")
        }
    }

    /// How a connecting client names itself: `?client=NAME` on the socket's URL (as
    /// Parley's own clients do), else its User-Agent header, else "unknown". The engine
    /// keeps it printable and short.
    static func clientName(of head: HTTPRequestHead) -> String {
        if let query = URLComponents(string: head.uri)?.queryItems, let named = query.first(where: { $0.name == "client" })?.value,
            !named.isEmpty
        {
            return String(named.prefix(64))
        }
        return head.headers["user-agent"].first.map { String($0.prefix(64)) } ?? "unknown"
    }
}

/// Past `maxConnections`.
struct ConnectionRefused: Error {}

/// Looks at the first request head before the upgrader does. An upgrade to WebSocket
/// that cannot succeed (another path, no key, a version other than 13) is answered
/// here, 400 or 426, and the connection closed: NIO's upgrader, refusing it, would hand
/// the plain-HTTP side a request without its head (apple/swift-nio#2632) and the client
/// would get no answer. Any other head passes, and the check leaves the pipeline.
final class UpgradeCheck: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        guard case .head(let head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        if let (status, headers, reason) = Self.refusal(of: head) {
            refused = true
            var response = HTTPHeaders(headers)
            response.add(name: "Connection", value: "close")
            response.add(name: "Content-Length", value: String(reason.utf8.count))
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: response))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: reason)))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    static func refusal(of head: HTTPRequestHead) -> (HTTPResponseStatus, [(String, String)], String)? {
        guard head.headers["upgrade"].contains(where: { $0.lowercased() == "websocket" }) else { return nil }
        let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
        guard path == ServerChannel.socketPath else {
            return (.notFound, [], "WebSocket connections go to \(ServerChannel.socketPath)\n")
        }
        let versions = head.headers["sec-websocket-version"]
        guard versions == ["13"] else {
            return (.upgradeRequired, [("Sec-WebSocket-Version", "13")], "only WebSocket version 13 is spoken here\n")
        }
        let keys = head.headers["sec-websocket-key"]
        guard keys.count == 1, let key = keys.first, Data(base64Encoded: key)?.count == 16 else {
            return (.badRequest, [], "a WebSocket upgrade needs one Sec-WebSocket-Key of 16 bytes in base64\n")
        }
        guard head.method == .GET else { return (.badRequest, [], "a WebSocket upgrade is a GET\n") }
        let connection = head.headers["connection"].flatMap { $0.split(separator: ",") }
        guard connection.contains(where: { $0.trimmingCharacters(in: .whitespaces).lowercased() == "upgrade" }) else {
            return (.badRequest, [], "a WebSocket upgrade needs Connection: Upgrade\n")
        }
        return nil
    }
}

/// Ends a connection whose request the HTTP parser refused (garbage before the first
/// head, a malformed chunk after it), once NIO's error handler has answered it 400. It
/// leaves the pipeline when the connection becomes a WebSocket.
final class ParserErrorCloser: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is HTTPParserError { context.close(promise: nil) }
        context.fireErrorCaught(error)
    }
}
