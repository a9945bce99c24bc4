import Hummingbird
import NIOCore

/// The request context of Parley's routes: Hummingbird's basic context plus the
/// client's address, which the engine's rate limit on sign-in codes counts by.
struct ParleyRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// The client's IP address (no port), or "unknown".
    var clientAddress: String { remoteAddress?.ipAddress ?? "unknown" }
}
