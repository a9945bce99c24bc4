import Foundation
import NIOCore
import ParleyLive
import ParleyProtocol

/// One event's frame, encoded once and written to every socket that gets it.
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
}
