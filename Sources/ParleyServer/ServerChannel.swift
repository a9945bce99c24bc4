import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

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

    let responder: HTTPChannelHandler.Responder
    let server: ParleyServer

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let server = server
            let upgrader = NIOTypedWebSocketServerUpgrader<Upgrade>(
                maxFrameSize: server.configuration.maxFrameSize,
                shouldUpgrade: { channel, head in
                    let path = head.uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? head.uri
                    return channel.eventLoop.makeSucceededFuture(path == Self.socketPath ? HTTPHeaders() : nil)
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        let maxSize = server.configuration.maxFrameSize
                        try channel.pipeline.syncOperations.addHandler(
                            NIOWebSocketFrameAggregator(
                                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 256, maxAccumulatedFrameSize: maxSize))
                        try channel.pipeline.syncOperations.addHandler(SocketHandler(server: server))
                        return .webSocket
                    }
                })
            let upgrades = NIOTypedHTTPServerUpgradeConfiguration(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(logger: logger))
                        return .http(
                            try NIOAsyncChannel(wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true)))
                    }
                })
            var pipeline = NIOUpgradableHTTPServerPipelineConfiguration(upgradeConfiguration: upgrades)
            pipeline.enablePipelining = false  // NIOAsyncChannel serves one request at a time
            pipeline.enableErrorHandling = false  // Hummingbird answers bad requests
            pipeline.enableResponseHeaderValidation = false  // HTTPTypes validates them
            let upgrade = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: pipeline)
            return Value(upgrade: upgrade, channel: channel)
        }
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
}
