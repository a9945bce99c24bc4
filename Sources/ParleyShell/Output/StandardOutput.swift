public import Glibc

/// Unbuffered writes to a file descriptor (stdio's `stdout` is global mutable state
/// that Swift 6 will not let us touch from concurrent code).
public enum StandardOutput {
    public static func write(_ text: String, to descriptor: Int32 = STDOUT_FILENO) {
        write(Array(text.utf8), to: descriptor)
    }

    public static func write(_ bytes: [UInt8], to descriptor: Int32 = STDOUT_FILENO) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
