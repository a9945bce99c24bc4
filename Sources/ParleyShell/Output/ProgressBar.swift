import Foundation
import ParleyCore
import Synchronization

/// `[#########-----------]  45%  45.0 MiB / 100.0 MiB  38.2 MiB/s` on standard error,
/// redrawn in place at most ten times a second and wiped when the transfer ends. Only
/// on a terminal, and only for transfers over 1 MiB.
final class ProgressBar: Sendable {
    static let threshold: Int64 = 1 << 20

    private struct State {
        var lastDraw: ContinuousClock.Instant?
        var drawn = false
    }

    private let label: String
    private let started = ContinuousClock.now
    private let state = Mutex(State())
    private let width = 24

    init(label: String) {
        self.label = label
    }

    /// A progress callback that draws this bar, or nil when no bar should show.
    static func callback(label: String, size: Int64, enabled: Bool) -> (bar: ProgressBar?, progress: TransferProgress?) {
        guard enabled, size > threshold else { return (nil, nil) }
        let bar = ProgressBar(label: label)
        return (bar, { done, total in bar.update(done, total > 0 ? total : size) })
    }

    func update(_ done: Int64, _ total: Int64) {
        let now = ContinuousClock.now
        let draw = state.withLock { state in
            if let last = state.lastDraw, now - last < .milliseconds(100), done < total { return false }
            state.lastDraw = now
            state.drawn = true
            return true
        }
        guard draw, total > 0 else { return }
        let fraction = min(1, Double(done) / Double(total))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let seconds = max(0.001, (now - started).seconds)
        let rate = byteCount(Int64(Double(done) / seconds))
        let line =
            "\r\u{1B}[K\(label) [\(bar)] \(String(format: "%3d", Int(fraction * 100)))%  \(byteCount(done)) / \(byteCount(total))  \(rate)/s"
        StandardOutput.write(Array(line.utf8), to: STDERR_FILENO)
    }

    /// Wipes the bar's line.
    func finish() {
        guard state.withLock({ $0.drawn }) else { return }
        StandardOutput.write(Array("\r\u{1B}[K".utf8), to: STDERR_FILENO)
    }
}
