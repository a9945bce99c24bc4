import Foundation
import ParleyCore

/// Who may open a data folder's database: one `parley serve`, or any number of embedded
/// shells and bots, never both. A second server on the folder, or a shell beside a
/// server, would write the same database but keep its own live sessions, so nobody
/// connected to the one would hear what was sent through the other.
///
/// The lock is `flock` on `parley.lock` in the folder, held until the process exits, so
/// a process that dies without cleaning up releases it. The server writes its pid there
/// for the message the others get.
enum FolderLock {
    enum Holder {
        /// `parley serve`: alone.
        case server
        /// An embedded shell or bot: beside others of its kind.
        case embedded
    }

    /// Locks `folder` for this process's lifetime, or says who holds it. Returns the
    /// lock file's descriptor, for `announce`.
    static func hold(_ folder: URL, as holder: Holder) throws -> Int32 {
        let path = folder.appendingPathComponent("parley.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ParleyError(.fileError, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, (holder == .server ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            let message = refusal(folder: folder, descriptor: descriptor, holder: holder)
            close(descriptor)
            throw ParleyError(.unavailable, message)
        }
        if holder == .server { announce(url: nil, on: descriptor) }
        // Never closed: the lock goes with the process.
        return descriptor
    }

    /// Writes the server's pid, and its address once it listens, for the refusals.
    static func announce(url: String?, on descriptor: Int32) {
        let line = "\(getpid())" + (url.map { " \($0)" } ?? "") + "\n"
        _ = ftruncate(descriptor, 0)
        _ = line.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    }

    private static func refusal(folder: URL, descriptor: Int32, holder: Holder) -> String {
        // Shared holders are shells and bots; only a server holds it alone.
        let heldByServer = flock(descriptor, LOCK_SH | LOCK_NB) != 0
        if !heldByServer { _ = flock(descriptor, LOCK_UN) }
        guard heldByServer else {
            return "the data folder \(folder.path) is open in an embedded parley shell or bot; quit those first, or give the server a folder of its own"
        }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = max(0, pread(descriptor, &buffer, buffer.count, 0))
        let fields = String(decoding: buffer[..<count], as: UTF8.self).split(whereSeparator: \.isWhitespace)
        let pid = fields.first.flatMap { Int32($0) }
        let url = fields.count > 1 ? String(fields[1]) : "ws://HOST:PORT"
        let by = pid.map { "parley serve (pid \($0))" } ?? "parley serve"
        return holder == .server
            ? "the data folder \(folder.path) is already served by \(by); one folder, one server"
            : "the data folder \(folder.path) is served by \(by); connect to it with --server \(url) instead"
    }
}
