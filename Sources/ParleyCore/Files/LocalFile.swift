public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A regular file to upload or copy, checked before the first byte moves: a missing
/// path is `file_not_found`, a directory or device is `not_a_file`.
public struct LocalFile: Sendable {
    public let url: URL
    public let size: Int64

    public init(reading url: URL) throws(ParleyError) {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw ParleyError(.fileNotFound, "no file at \(url.path)")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw ParleyError(.notAFile, "\(url.path) is \((info.st_mode & S_IFMT) == S_IFDIR ? "a directory" : "not a regular file")")
        }
        self.url = url
        self.size = Int64(info.st_size)
    }

    /// Reads the file start to end in chunks of `chunkSize` bytes.
    public func forEachChunk(
        chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws(ParleyError) -> Void
    ) throws(ParleyError) {
        let reader = try Reader(url)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// An open file read from start to end, for callers that read between awaits.
    public final class Reader {
        private let descriptor: Int32
        private let url: URL

        public init(_ url: URL) throws(ParleyError) {
            self.url = url
            descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw ParleyError(.fileError, "cannot read \(url.path): \(String(cString: strerror(errno)))")
            }
        }

        deinit { close(descriptor) }

        /// Fills as much of `buffer` as one read gives; 0 at the end of the file.
        public func read(into buffer: UnsafeMutableRawBufferPointer) throws(ParleyError) -> Int {
            while true {
                let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
                if count >= 0 { return count }
                if errno != EINTR {
                    throw ParleyError(.fileError, "cannot read \(url.path): \(String(cString: strerror(errno)))")
                }
            }
        }
    }

    /// Checks where a download may go: its folder must exist, and an existing file is
    /// only replaced when asked (`file_exists` otherwise).
    public static func destination(_ url: URL, replace: Bool) throws(ParleyError) -> URL {
        var info = stat()
        if stat(url.path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR { throw ParleyError(.notAFile, "\(url.path) is a directory") }
            if !replace { throw ParleyError(.fileExists, "\(url.path) already exists (--force replaces it)") }
        }
        let folder = url.deletingLastPathComponent()
        guard stat(folder.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw ParleyError(.fileNotFound, "no folder \(folder.path)")
        }
        return url
    }
}
