import CMalloc

/// How the process's allocator treats freed memory; a host calls this once at start.
public enum Allocator {
    /// glibc hands free memory at the top of a heap back to the kernel once it passes
    /// 128 KiB, and the next large result (a batch of messages, a thousand-chat list)
    /// faults it back in page by page. A quarter of a long script's time and half of a
    /// chat list's went to that. This keeps up to `bytes` of freed heap instead.
    public static func keepFreedMemory(upTo bytes: Int32 = 64 << 20) {
        mallopt(M_TRIM_THRESHOLD, bytes)
        mallopt(M_TOP_PAD, bytes / 4)
    }
}
