import HummingbirdCore
import Logging
import NIOCore
import NIOSSL
import Synchronization

/// The TLS context new connections are given, which a reload replaces (a renewed
/// certificate, read again from its files): connections open keep the one they began
/// with, and none is closed for it.
final class TLSContextHolder: Sendable {
    private let context: Mutex<NIOSSLContext>

    init(_ configuration: TLSConfiguration) throws {
        context = Mutex(try NIOSSLContext(configuration: configuration))
    }

    var current: NIOSSLContext { context.withLock { $0 } }

    /// Makes the context first, so a configuration that fails leaves the old one in use.
    func replace(with configuration: TLSConfiguration) throws {
        let made = try NIOSSLContext(configuration: configuration)
        context.withLock { $0 = made }
    }
}

/// A child channel that speaks TLS with the holder's context of the moment, then is
/// `Base`.
struct ReloadableTLSChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let holder: TLSContextHolder

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: holder.current))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension ReloadableTLSChannel: HTTPChannelHandler where Base: HTTPChannelHandler {
    var responder: HTTPChannelHandler.Responder { base.responder }
}
