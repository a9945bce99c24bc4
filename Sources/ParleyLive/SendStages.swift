import Foundation
import Synchronization

/// Where a send's time goes, for measuring (`parley serve` with `PARLEY_STAGES=FILE`):
/// each request frame gets a trace when it arrives, and the layers it passes through
/// mark the moment it reaches each stage. Off by default, when each layer's cost is one
/// task-local read. `scripts/send-stages.py FILE` prints the table.
public enum SendStage: Int, CaseIterable, Sendable {
    /// Its task began on the socket's executor.
    case task
    /// The engine's send began (the frame decoded, the op dispatched).
    case engine
    /// Handed to the store's writer (membership and mentions checked).
    case store
    /// The store's writer committed it.
    case committed
    /// Every recipient's socket has it queued (the event bus delivered it).
    case published
    /// The sender's reply was written.
    case replied
    /// The last recipient's frame was written.
    case delivered

    public var name: String {
        switch self {
        case .task: "task"
        case .engine: "engine"
        case .store: "store"
        case .committed: "committed"
        case .published: "published"
        case .replied: "replied"
        case .delivered: "delivered"
        }
    }
}

/// One request's way through the server: when its frame arrived, and when it reached
/// each stage (the latest time, for a stage reached more than once).
public final class StageTrace: Sendable {
    @TaskLocal public static var current: StageTrace?

    public let arrived: ContinuousClock.Instant
    private let marks = Mutex([ContinuousClock.Instant?](repeating: nil, count: SendStage.allCases.count))

    init(arrived: ContinuousClock.Instant) { self.arrived = arrived }

    public func mark(_ stage: SendStage, at now: ContinuousClock.Instant = .now) {
        marks.withLock { marks in
            if let earlier = marks[stage.rawValue], earlier >= now { return }
            marks[stage.rawValue] = now
        }
    }

    /// Microseconds from the frame's arrival to each stage (nil: not reached).
    func offsets() -> [Int64?] {
        marks.withLock { marks in
            marks.map { mark in
                mark.map { mark in
                    let (seconds, attoseconds) = (mark - arrived).components
                    return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
                }
            }
        }
    }
}

/// The traces of a run, written to a file when the server stops: a header line of the
/// stages, then one line per send (the engine reached), microseconds since its frame
/// arrived, `-` for a stage not reached.
public final class StageLog: Sendable {
    /// Set once at start-up, from `PARLEY_STAGES`.
    public static let shared: StageLog? = ProcessInfo.processInfo.environment["PARLEY_STAGES"].map { StageLog(path: $0) }
    /// Traces kept at most: about 100 bytes each.
    static let capacity = 2_000_000

    private let path: String
    private let traces = Mutex([StageTrace]())

    init(path: String) { self.path = path }

    /// A trace for a frame that arrived now, kept for the file.
    public func begin() -> StageTrace {
        let trace = StageTrace(arrived: .now)
        traces.withLock { if $0.count < Self.capacity { $0.append(trace) } }
        return trace
    }

    /// Writes the file; the traces of requests that were not sends are left out.
    public func write() {
        let all = traces.withLock { $0 }
        var text = SendStage.allCases.map(\.name).joined(separator: "\t") + "\n"
        for trace in all {
            let offsets = trace.offsets()
            guard offsets[SendStage.engine.rawValue] != nil else { continue }
            text += offsets.map { $0.map(String.init) ?? "-" }.joined(separator: "\t") + "\n"
        }
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }
}
