import Glibc
import Synchronization

/// Foundation's `Process.run()` on Linux (Swift 6.3.1) reads each `/proc/self/fd` entry's
/// whole 256-byte name field, past the end of glibc's directory buffer, and crashes when
/// that buffer ends at the edge of mapped memory. A test process holding many sockets
/// hit it about one run in eight on a busy machine (fixed upstream in
/// swift-corelibs-foundation pull request 5472). Allocations from 32 KiB up, that
/// buffer among them, are given mappings of their own, which always end at least a
/// page past it: call this before any `Process.run()` in a test.
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
