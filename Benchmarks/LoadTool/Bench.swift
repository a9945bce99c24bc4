import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// Bench mode (`--messages K`): one group of `--clients` members, all connected and
/// receiving, `--senders` of them sending K messages in all, over Parley's WebSocket
/// (ws://) or IRC (irc://: Parley's gateway with --irc-guests, or any IRC server with
/// echo-message), so the same tool measures Parley beside other servers
/// (scripts/side-by-side.sh). Closed loop: a sender sends again when its last send is
/// acknowledged (Parley: the `send` reply, after the commit; IRC: the echo of its own
/// PRIVMSG). `--rate R`: R messages/s in all on a fixed schedule, latency counted from
/// the scheduled time. Everything runs on the tool's one event loop, driven by its
/// timers and reads; the result is one JSON line (`--json FILE` appends it there too).
enum Bench {
    static func run(_ options: LoadOptions) async throws {
        let plan = try BenchPlan(options)
        let loop = loadLoop.next()
        let bench = BenchRun(plan: plan, loop: loop)
        say("bench: \(plan.members) members, \(plan.senders) senders, \(plan.messages) messages over \(plan.proto)")
        try await bench.connectAll()
        let serverCPU = ProcessFigures(pids: plan.serverPIDs)
        let cpuBefore = serverCPU.cpuSeconds()
        let clientBefore = ProcessFigures.ownCPUSeconds()
        let figures = try await bench.measure()
        let line = plan.jsonLine(
            figures, serverCPU: serverCPU.cpuSeconds() - cpuBefore, serverPeakMB: serverCPU.peakMegabytes(),
            clientCPU: ProcessFigures.ownCPUSeconds() - clientBefore)
        report(line)
        if let path = options.json {
            guard let file = FileHandle(forWritingAtPath: path) ?? Self.created(path) else {
                throw BenchError("--json: cannot write \(path)")
            }
            file.seekToEndOfFile()
            file.write(Data((line + "\n").utf8))
            try file.close()
        }
        if let path = plan.deliveries {
            let rows = zip(figures.sendTimes, figures.latencies).map { "\($0)\t\($1)\n" }.joined()
            guard FileManager.default.createFile(atPath: path, contents: Data(rows.utf8)) else {
                throw BenchError("--deliveries: cannot write \(path)")
            }
        }
        try? await bench.closeAll()
    }

    private static func created(_ path: String) -> FileHandle? {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
        return FileHandle(forWritingAtPath: path)
    }
}

/// What a bench run does, checked from the options.
struct BenchPlan: Sendable {
    enum Proto: String, Sendable { case parley, irc }
    let proto: Proto
    let host: String
    let port: Int
    let members: Int
    let senders: Int
    let messages: Int
    let rate: Double
    let label: String
    let serverPIDs: [Int32]
    let deliveries: String?
    var keepsDeliveries: Bool { deliveries != nil }
    let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)

    init(_ options: LoadOptions) throws {
        guard let url = URL(string: options.url), let host = url.host, let port = url.port,
            let proto = ["ws": Proto.parley, "irc": .irc][url.scheme ?? ""]
        else { throw ValidationError("bench: --url is ws://HOST:PORT or irc://HOST:PORT") }
        guard let messages = options.messages, (1...10_000_000).contains(messages), (2...10_000).contains(options.clients),
            (1...options.clients).contains(options.senders)
        else { throw ValidationError("bench: --messages 1 to 10000000, --clients 2 to 10000, --senders 1 to --clients") }
        self.proto = proto
        self.host = host
        self.port = port
        self.members = options.clients
        self.senders = options.senders
        self.messages = messages
        self.rate = options.rate
        self.label = options.label ?? "\(host):\(port)"
        self.deliveries = options.deliveries
        self.serverPIDs = try (options.serverPID ?? "").split(separator: ",").map {
            guard let pid = Int32($0), pid > 0 else { throw ValidationError("--server-pid is PID[,PID…]") }
            return pid
        }
    }

    func jsonLine(_ figures: BenchFigures, serverCPU: Double, serverPeakMB: Double?, clientCPU: Double) -> String {
        let sorted = figures.latencies.sorted()
        let acks = figures.ackLatencies.sorted()
        /// The `p` quantile of ascending microseconds, in ms (0 when there are none).
        func percentile(_ p: Double, of sorted: [Int64]) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
        }
        var fields: [String: Any] = [
            "label": label, "proto": proto.rawValue, "generator": "parley-load", "members": members, "senders": senders,
            "messages": messages, "rate": rate, "acked": figures.acknowledged, "errors": figures.errors,
            "acked_per_s": Double(figures.acknowledged) / max(figures.seconds, 1e-9),
            "delivered": figures.delivered, "delivered_per_s": Double(figures.delivered) / max(figures.seconds, 1e-9),
            "missing": figures.missing, "seconds": figures.seconds,
            "e2e_p50_ms": percentile(0.5, of: sorted), "e2e_p99_ms": percentile(0.99, of: sorted),
            "e2e_p999_ms": percentile(0.999, of: sorted),
            "e2e_max_ms": percentile(1, of: sorted), "client_cpu_s": clientCPU,
            "ack_p50_ms": percentile(0.5, of: acks), "ack_p99_ms": percentile(0.99, of: acks),
        ]
        if !figures.lateness.isEmpty {
            let late = figures.lateness.sorted()
            fields["send_late_p99_ms"] = percentile(0.99, of: late)
            fields["send_late_max_ms"] = percentile(1, of: late)
        }
        if !serverPIDs.isEmpty {
            fields["server_cpu_s"] = serverCPU
            fields["server_cpu_us_per_message"] = figures.acknowledged > 0 ? serverCPU * 1e6 / Double(figures.acknowledged) : 0
            if let serverPeakMB { fields["server_peak_mb"] = serverPeakMB }
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A run's outcome: acknowledged sends over the measured seconds, deliveries and their
/// latencies in microseconds, deliveries that never came.
struct BenchFigures: Sendable {
    var acknowledged = 0
    var errors = 0
    var delivered = 0
    var missing = 0
    var seconds = 0.0
    var latencies: [Int64] = []
    /// Each acknowledged send's time from its stamp to its acknowledgement, in microseconds.
    var ackLatencies: [Int64] = []
    /// At a fixed rate: how late each send left after its scheduled time, in microseconds
    /// (the tool's own delay, which its latencies include).
    var lateness: [Int64] = []
    /// With `--deliveries`: each delivery's send time, in microseconds from the start.
    var sendTimes: [Int64] = []
}

/// CPU time and peak memory of server processes, from /proc.
struct ProcessFigures {
    let pids: [Int32]

    func cpuSeconds() -> Double {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return pids.reduce(0) { total, pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return total }
            // After the name: the state is field 3; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return total }
            return total + (user + system) / ticks
        }
    }

    /// The sum of the processes' peak resident memory (VmHWM), in MB.
    func peakMegabytes() -> Double? {
        let kilobytes = pids.compactMap { pid -> Double? in
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
            else { return nil }
            return Double(line.split(separator: " ")[1])
        }
        return kilobytes.isEmpty ? nil : kilobytes.reduce(0, +) / 1024
    }

    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

/// A bench run that could not go on, and why.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
