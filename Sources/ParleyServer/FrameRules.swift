import NIOCore
import NIOWebSocket

/// RFC 6455's rules for what a client may send, checked on every frame before the
/// fragments are joined: frames are masked, reserved bits are clear (no extension is
/// negotiated), opcodes are ones the RFC defines, and a close frame carries a valid
/// code and a UTF-8 reason. A frame that breaks one gets a close frame with 1002 (or
/// 1007 for the reason) and the socket closes; nothing after it is read. So does a
/// frame the decoder refuses (1009 when too large).
final class FrameRules: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private var broken = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !broken else { return }
        let frame = unwrapInboundIn(data)
        if let (code, reason) = Self.violation(in: frame) {
            broken = true
            context.fireUserInboundEventTriggered(FrameRuleBroken(reason: "\(UInt16(webSocketErrorCode: code)): \(reason)"))
            close(context, code, reason: reason)
            return
        }
        context.fireChannelRead(data)
    }

    /// A frame the decoder refused (longer than the largest frame, a fragmented or long
    /// control frame) gets a close frame with 1009 or 1002, as NIO's protocol error
    /// handler would send: done here, the socket has one handler fewer.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? NIOWebSocketError, !broken {
            broken = true
            close(context, error == .invalidFrameLength ? .messageTooLarge : .protocolError, reason: nil)
        }
        context.fireErrorCaught(error)
    }

    /// Sends a close frame with `code` and `reason`, then closes the socket.
    private func close(_ context: ChannelHandlerContext, _ code: WebSocketErrorCode, reason: String?) {
        let payload = EventFrameBytes.closeData(code, reason: reason, allocator: context.channel.allocator)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// Told down the pipeline when a frame broke a rule, so the socket can log why it ends.
    struct FrameRuleBroken {
        var reason: String
    }

    /// The close code and reason a frame earns, or nil when it keeps the rules.
    static func violation(in frame: WebSocketFrame) -> (WebSocketErrorCode, String)? {
        guard frame.maskKey != nil else { return (.protocolError, "client frames must be masked") }
        guard !frame.rsv1, !frame.rsv2, !frame.rsv3 else { return (.protocolError, "reserved bits set without an extension") }
        switch frame.opcode {
        case .continuation, .text, .binary, .ping, .pong: return nil
        case .connectionClose: return closeViolation(frame.unmaskedData)
        default: return (.protocolError, "reserved opcode")
        }
    }

    /// A close frame's body is empty, or a code the RFC lets an endpoint send and a
    /// UTF-8 reason.
    private static func closeViolation(_ body: ByteBuffer) -> (WebSocketErrorCode, String)? {
        var body = body
        guard body.readableBytes != 0 else { return nil }
        guard let code = body.readInteger(as: UInt16.self) else { return (.protocolError, "a close code is two bytes") }
        guard isSendable(code) else { return (.protocolError, "close code \(code) may not be sent") }
        guard validUTF8(body) else {
            return (.dataInconsistentWithMessage, "the close reason is not UTF-8")
        }
        return nil
    }

    /// Codes 1000–1003, 1007–1011 and 3000–4999 (1004–1006 and 1015 are reserved, the
    /// rest unassigned).
    static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    private static func validUTF8(_ buffer: ByteBuffer) -> Bool {
        buffer.withUnsafeReadableBytes { bytes in
            var iterator = bytes.makeIterator()
            var decoder = UTF8()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue: continue
                case .emptyInput: return true
                case .error: return false
                }
            }
        }
    }
}
