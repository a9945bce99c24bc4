import Foundation
public import ParleyCore
import Synchronization

/// Who may open a database: one server alone, or any number of embedded shells and
/// bots, never both. A second server on the folder, or a shell beside a server, would
/// write the same database but keep its own live sessions, so nobody connected to the
/// one would hear what was sent through the other. `SQLiteChatStore` takes this lock
/// whenever it opens a database, so no program built on the modules can open a served
/// folder by mistake.
///
/// The lock is `flock` on a file beside the database (`parley.lock` for
/// `parley.sqlite`), held until `release` or the end of the process, so a process
/// that dies without cleaning up releases it. The server writes its pid (and address)
/// there for the message the others get.
public final class DatabaseLock: Sendable {
    public enum Access: Sendable {
        /// A server: alone.
        case exclusive
        /// An embedded shell or bot: beside others of its kind.
        case shared
    }

    private let descriptor: Mutex<Int32>

    /// Locks the database at `databasePath`, or says who holds it (`unavailable`).
    public init(databasePath: String, access: Access) throws(ParleyError) {
        let folder = URL(fileURLWithPath: databasePath).deletingLastPathComponent()
        let path = Self.file(forDatabase: databasePath)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw ParleyError(.fileError, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, (access == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            let message = Self.refusal(folder: folder, descriptor: descriptor, access: access)
            close(descriptor)
            throw ParleyError(.unavailable, message)
        }
        self.descriptor = Mutex(descriptor)
        if access == .exclusive { announce(url: nil) }
    }

    deinit { release() }

    /// The lock's file beside the database at `databasePath` (`parley.lock` for `parley.sqlite`).
    public static func file(forDatabase databasePath: String) -> String {
        URL(fileURLWithPath: databasePath).deletingPathExtension().appendingPathExtension("lock").path
    }

    /// Writes this process's pid, and the server's address once it listens, for the refusals.
    public func announce(url: String?) {
        let line = "\(getpid())" + (url.map { " \($0)" } ?? "") + "\n"
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            _ = ftruncate(descriptor, 0)
            _ = line.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        }
    }

    /// Lets others open the database (done by `SQLiteChatStore.close`).
    public func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            // Unlocked before closing: a child that this process is starting at the same
            // moment holds a copy of the descriptor until it runs its program, and the
            // lock would last as long as that copy.
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    private static func refusal(folder: URL, descriptor: Int32, access: Access) -> String {
        // Shared holders are shells and bots; only a server holds it alone.
        let heldByServer = flock(descriptor, LOCK_SH | LOCK_NB) != 0
        if !heldByServer { _ = flock(descriptor, LOCK_UN) }
        guard heldByServer else {
            return
                "the data folder \(folder.path) is open in an embedded parley shell or bot; quit those first, or give the server a folder of its own"
        }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = max(0, pread(descriptor, &buffer, buffer.count, 0))
        let fields = String(decoding: buffer[..<count], as: UTF8.self).split(whereSeparator: \.isWhitespace)
        let pid = fields.first.flatMap { Int32($0) }
        let url = fields.count > 1 ? String(fields[1]) : "ws://HOST:PORT"
        let by = pid.map { "parley serve (pid \($0))" } ?? "parley serve"
        return access == .exclusive
            ? "the data folder \(folder.path) is already served by \(by); one folder, one server"
            : "the data folder \(folder.path) is served by \(by); connect to it with --server \(url) instead"
    }
}
