import Dispatch
import Foundation
import Glibc
import Synchronization

/// Whether the process was lately not running (Ctrl-Z, SIGSTOP, a frozen terminal): a
/// connection lost then was let go by the server while the shell was not answering,
/// which is not the server being unreachable.
///
/// Two witnesses, since neither alone sees every order of events: the time of the last
/// SIGCONT, and a thread that notes the time every half second. After a stop the
/// socket's thread may see the closed connection before the signal's handler has run;
/// the beat is late then, or, once it has run, it noted the gap.
enum ProcessStops {
    /// CLOCK_MONOTONIC nanoseconds of the last SIGCONT; 0 before any.
    private static let continuedAt = Atomic<UInt64>(0)
    /// The beat thread's last wake-up, and the end of the last gap between two beats
    /// longer than `pause` (0 before any).
    private static let beatAt = Atomic<UInt64>(0)
    private static let pausedUntil = Atomic<UInt64>(0)
    private static let beat: UInt64 = 500_000_000
    private static let pause: UInt64 = 3_000_000_000

    /// Notes each SIGCONT (the handler only stores the time: safe in a signal handler),
    /// and starts the beat.
    static func watch() {
        signal(SIGCONT) { _ in ProcessStops.continuedAt.store(ProcessStops.now(), ordering: .relaxed) }
        beatAt.store(now(), ordering: .relaxed)
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: Double(beat) / 1e9)
                let now = ProcessStops.now()
                if now &- beatAt.load(ordering: .relaxed) > pause { pausedUntil.store(now, ordering: .relaxed) }
                beatAt.store(now, ordering: .relaxed)
            }
        }
        thread.name = "parley-stops"
        thread.start()
    }

    /// Whether the process was continued, or found not running for seconds, within the
    /// last `seconds` (or is only now running again).
    static func continued(within seconds: UInt64) -> Bool {
        let now = now()
        let window = seconds &* 1_000_000_000
        func recent(_ at: UInt64) -> Bool { at != 0 && now &- at <= window }
        let lastBeat = beatAt.load(ordering: .relaxed)
        return recent(continuedAt.load(ordering: .relaxed)) || recent(pausedUntil.load(ordering: .relaxed))
            || (lastBeat != 0 && now &- lastBeat > pause)
    }

    /// Monotonic nanoseconds (`DispatchTime` reads CLOCK_MONOTONIC, as a signal
    /// handler may).
    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
