import Foundation
import NIOCore
public import ParleyCore
import ParleyStore

/// What starting a server asks of the process: open files, and what a failed start means.
extension ParleyServer {
    /// What a failure to start means for the person who ran the server, or nil when
    /// there is nothing to add to the error itself.
    public static func startFailure(_ error: any Error, host: String, port: Int) -> ParleyError? {
        guard let failure = error as? IOError else { return nil }
        switch failure.errnoCode {
        case EADDRINUSE:
            return ParleyError(
                .unavailable,
                "\(host):\(port) is already in use (another parley serve, or another program?): stop it, or choose another --port (0 picks a free one)"
            )
        case EACCES:
            return ParleyError(.unavailable, "\(host):\(port) needs privileges this user lacks: choose a --port above 1023")
        case EADDRNOTAVAIL:
            return ParleyError(.unavailable, "\(host) is not an address of this machine: choose another --host")
        default:
            return nil
        }
    }

    /// Descriptors kept for the database, media files, logs and `/healthz`.
    static let reservedDescriptors = 64

    /// The process's soft limit on open files.
    static func openFileLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return Int.max / 2 }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit on open files to the hard one (what `parley serve` does at
    /// start, so the connection cap, not the default 1,024, decides).
    public static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
