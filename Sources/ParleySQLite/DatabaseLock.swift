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
        /// An embedded shell or bot: alone too. Its live events (messages, presence,
        /// mentions) stay in its process, so a second one on the folder would write the
        /// same chats and hear none of the first one's.
        case embedded
        /// A program on the modules that reads and writes beside others of its kind.
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
        guard flock(descriptor, (access == .shared ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0 else {
            let message = Self.refusal(folder: folder, descriptor: descriptor, access: access)
            close(descriptor)
            throw ParleyError(.unavailable, message)
        }
        self.descriptor = Mutex(descriptor)
        switch access {
        case .exclusive: announce(url: nil)
        case .embedded: announce(url: Self.embeddedMark)
        case .shared: break
        }
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

    /// What an embedded shell or bot writes after its pid, where a server writes its address.
    static let embeddedMark = "embedded"

    private static func refusal(folder: URL, descriptor: Int32, access: Access) -> String {
        // Shared holders are programs on the modules; a server, a shell or a bot holds it alone.
        let heldAlone = flock(descriptor, LOCK_SH | LOCK_NB) != 0
        if !heldAlone { _ = flock(descriptor, LOCK_UN) }
        guard heldAlone else {
            return "the data folder \(folder.path) is open in another program on Parley's modules; quit it first"
        }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = max(0, pread(descriptor, &buffer, buffer.count, 0))
        let fields = String(decoding: buffer[..<count], as: UTF8.self).split(whereSeparator: \.isWhitespace)
        let pid = fields.first.flatMap { Int32($0) }
        if fields.count > 1, fields[1] == embeddedMark {
            let by = pid.map { "another parley shell or bot (pid \($0))" } ?? "another parley shell or bot"
            let advice =
                access == .exclusive
                ? "quit it first, or give the server a folder of its own"
                : "two on one folder would not hear each other's messages; quit it, give this one a folder of its own "
                    + "(--data DIR), or run `parley serve --data \(folder.path)` and connect both with --server"
            return "the data folder \(folder.path) is open in \(by): \(advice)"
        }
        let url = fields.count > 1 ? String(fields[1]) : "ws://HOST:PORT"
        let by = pid.map { "parley serve (pid \($0))" } ?? "parley serve"
        return access == .exclusive
            ? "the data folder \(folder.path) is already served by \(by); one folder, one server"
            : "the data folder \(folder.path) is served by \(by); connect to it with --server \(url) instead"
    }
}
