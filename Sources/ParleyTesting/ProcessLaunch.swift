import Glibc
import Synchronization

/// Foundation's `Process.run()` on Linux (Swift 6.3.1) reads each `/proc/self/fd` entry's
/// whole 256-byte name field, past the end of glibc's directory buffer, and crashes when
/// that buffer ends at the edge of mapped memory (fixed upstream in
/// swift-corelibs-foundation pull request 5472). A test process holding many sockets hit
/// it about one run in eight on a busy machine. The edge is met mostly when malloc grows
/// a heap by just the buffer's size; from 32 KiB up, an allocation that does not fit the
/// heap gets a mapping of its own instead, which ends at least a page past the buffer.
/// That makes the crash rare, not impossible: the sure cure is to start processes
/// without Foundation. Call this before any `Process.run()` in a test.
public enum ProcessLaunch {
    private static let prepared = Mutex(false)

    public static func prepare() {
        prepared.withLock { done in
            guard !done else { return }
            // mallopt(M_MMAP_THRESHOLD, 32 KiB); malloc.h is not in Glibc's module.
            typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
            let mmapThreshold: Int32 = -3
            if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") {
                _ = unsafeBitCast(symbol, to: Mallopt.self)(mmapThreshold, 32 * 1024)
            }
            done = true
        }
    }
}
