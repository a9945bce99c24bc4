public import NIOCore

extension [ByteBuffer] {
    /// The buffers' bytes in one buffer, in order (the only one itself, not a copy). The
    /// servers write what a socket has queued as one: a write through a channel's
    /// pipeline costs more than copying a few lines or frames, and the kernel gets one
    /// buffer instead of a list.
    public func joined() -> ByteBuffer {
        guard count > 1 else { return first ?? ByteBuffer() }
        var size = 0
        for buffer in self { size += buffer.readableBytes }
        var joined = ByteBuffer()
        joined.reserveCapacity(size)
        for buffer in self { joined.writeImmutableBuffer(buffer) }
        return joined
    }
}
