import Foundation
import NIOCore
import NIOWebSocket
import ParleyLive
import ParleyProtocol

/// One event's frame, encoded once and written to every socket that gets it; and the
/// bytes of the other frames the server writes past the frame encoder.
final class EventFrameBytes: Sendable {
    let bytes: ByteBuffer
    init(bytes: ByteBuffer) { self.bytes = bytes }

    /// An event as a complete WebSocket text frame, header included: a server's frames
    /// are not masked, so every socket can be sent the same bytes.
    static func frame(of event: PositionedEvent) -> EventFrameBytes {
        let frame = EventFrame(event: event.event, pos: event.position)
        return EventFrameBytes(bytes: textFrame(frame.bytes ?? []))
    }

    /// `payload` as one unmasked, unfragmented text frame, header included.
    static func textFrame(_ payload: some Collection<UInt8>) -> ByteBuffer {
        var bytes = ByteBuffer()
        bytes.reserveCapacity(payload.count + 10)
        bytes.writeInteger(UInt8(0x81))  // FIN, text
        switch payload.count {
        case ..<126: bytes.writeInteger(UInt8(payload.count))
        case ...0xFFFF:
            bytes.writeInteger(UInt8(126))
            bytes.writeInteger(UInt16(payload.count))
        default:
            bytes.writeInteger(UInt8(127))
            bytes.writeInteger(UInt64(payload.count))
        }
        bytes.writeBytes(payload)
        return bytes
    }

    /// Finished frames (at least one), then `last`, in one buffer for one socket's write.
    /// The first frame is shared with other sockets: making room in it makes this
    /// socket's copy, once, of the size of them all.
    static func joined(_ frames: [ByteBuffer], then last: ByteBuffer? = nil) -> ByteBuffer {
        var joined = frames[0]
        if frames.count > 1 || last != nil {
            joined.reserveCapacity(frames.reduce(joined.readerIndex + (last?.readableBytes ?? 0)) { $0 + $1.readableBytes })
            for frame in frames.dropFirst() { joined.writeImmutableBuffer(frame) }
            if let last { joined.writeImmutableBuffer(last) }
        }
        return joined
    }

    /// A close frame's body: the code, and the reason cut to fit a control frame.
    static func closeData(_ code: WebSocketErrorCode, reason: String?, allocator: ByteBufferAllocator) -> ByteBuffer {
        var data = allocator.buffer(capacity: 2 + (reason?.utf8.count ?? 0))
        data.write(webSocketErrorCode: code)
        if let reason { data.writeString(String(reason.prefix(120))) }
        return data
    }
}
