import Dispatch
import Glibc
import Synchronization

/// When the process was last continued after being stopped (Ctrl-Z, SIGSTOP, a frozen
/// terminal): a connection lost just after that was let go by the server while the shell
/// was not answering, which is not the server being unreachable.
enum ProcessStops {
    /// CLOCK_MONOTONIC nanoseconds of the last SIGCONT; 0 before any.
    private static let continuedAt = Atomic<UInt64>(0)

    /// Notes each SIGCONT (the handler only stores the time: safe in a signal handler).
    static func watch() {
        signal(SIGCONT) { _ in ProcessStops.continuedAt.store(ProcessStops.now(), ordering: .relaxed) }
    }

    /// Whether the process was continued within the last `seconds`.
    static func continued(within seconds: UInt64) -> Bool {
        let at = continuedAt.load(ordering: .relaxed)
        return at != 0 && now() &- at <= seconds &* 1_000_000_000
    }

    /// Monotonic nanoseconds (`DispatchTime` reads CLOCK_MONOTONIC, as a signal
    /// handler may).
    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
