import Hummingbird
import NIOCore

/// A request's context with the address it came from, so that every HTTP door (the API,
/// media, hooks) asks the engine's gate with it, as the sockets do: a range ban holds
/// for a token used over HTTP as for a WebSocket.
struct ParleyRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

extension ParleyServer {
    /// Who sent a request: its peer, or the client a trusted proxy names in
    /// `X-Forwarded-For` (as for an upgrade).
    func clientAddress(_ request: Request, _ context: ParleyRequestContext) -> String {
        let peer = context.remoteAddress?.ipAddress ?? "unknown"
        guard configuration.trustedProxies.contains(peer) else { return peer }
        let forwarded = HTTPFields.Element.Name("X-Forwarded-For").flatMap { request.headers[values: $0].last }
        return ServerChannel.lastForwarded(forwarded) ?? peer
    }
}
