import NIOCore

/// Splits a connection's bytes into lines (LF, with or without CR). A line longer than
/// the tags' and the body's allowance together is not buffered: it is dropped up to its
/// end and reported as `.tooLong`, so a client that never sends LF costs a bounded buffer.
struct IRCLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = IRCInbound

    static let maxLineBytes = IRCMessage.maxClientTagBytes + IRCMessage.maxBodyBytes
    private var discarding = false

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.maxLineBytes {
                buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
                if !discarding {
                    discarding = true
                    context.fireChannelRead(wrapInboundOut(.tooLong))
                }
            }
            return .needMoreData
        }
        let length = newline - view.startIndex
        var line = buffer.readSlice(length: length)!
        buffer.moveReaderIndex(forwardBy: 1)
        if discarding {
            discarding = false
            return .continue
        }
        if line.readableBytes > Self.maxLineBytes {
            context.fireChannelRead(wrapInboundOut(.tooLong))
            return .continue
        }
        if line.readableBytesView.last == UInt8(ascii: "\r") { line.moveWriterIndex(to: line.writerIndex - 1) }
        context.fireChannelRead(wrapInboundOut(.line(String(decoding: line.readableBytesView, as: UTF8.self))))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

/// What the decoder hands on: a line, or word that one was too long.
enum IRCInbound: Sendable {
    case line(String)
    case tooLong

    /// What it weighs while it waits for its turn (`FloodControl`).
    var bytes: Int {
        switch self {
        case .line(let text): text.utf8.count
        case .tooLong: 0
        }
    }
}
