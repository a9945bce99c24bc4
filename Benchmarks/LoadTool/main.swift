import Foundation
import ParleyClient
import ParleyCore
import Synchronization

// parley-load: opens N clients of a Parley server across G groups and sends as fast as
// acknowledged or at a fixed rate; reports acknowledged sends/s, delivered messages/s,
// and delivery latency percentiles. With --idle, just holds N signed-in sessions open.
//
//   parley-load --url ws://127.0.0.1:7878 --clients 20 --groups 1 --senders 5 --seconds 10
//   parley-load --url ws://127.0.0.1:7878 --clients 50 --senders 10 --rate 2000 --seconds 10
//   parley-load --url ws://127.0.0.1:7878 --clients 10000 --idle 30

struct Options {
    var url = "ws://127.0.0.1:7878"
    var clients = 20
    var groups = 1
    var senders = 5
    var rate = 0.0
    var seconds = 10.0
    var idle: Double?

    init(_ arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let flag = iterator.next() {
            let value = iterator.next() ?? ""
            switch flag {
            case "--url": url = value
            case "--clients": clients = Int(value) ?? clients
            case "--groups": groups = Int(value) ?? groups
            case "--senders": senders = Int(value) ?? senders
            case "--rate": rate = Double(value) ?? rate
            case "--seconds": seconds = Double(value) ?? seconds
            case "--idle": idle = Double(value)
            default:
                FileHandle.standardError.write(Data("unknown option \(flag)\n".utf8))
                exit(2)
            }
        }
    }
}

/// Delivery latencies in microseconds and counters, shared by all clients.
final class Tally: Sendable {
    private struct State {
        var latencies: [Int64] = []
        var acknowledged = 0
        var delivered = 0
        var failed = 0
    }

    private let state = Mutex(State())
    func delivered(latency: Int64) { state.withLock { $0.delivered += 1; $0.latencies.append(latency) } }
    func acknowledged() { state.withLock { $0.acknowledged += 1 } }
    func failed() { state.withLock { $0.failed += 1 } }
    func reset() { state.withLock { $0 = State() } }
    var snapshot: (acknowledged: Int, delivered: Int, failed: Int, latencies: [Int64]) {
        state.withLock { ($0.acknowledged, $0.delivered, $0.failed, $0.latencies) }
    }
}

let options = Options(CommandLine.arguments)
let epoch = ContinuousClock.now
func microsNow() -> Int64 {
    let elapsed = ContinuousClock.now - epoch
    return elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
}

let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
let tally = Tally()

func say(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

// Connect and sign up every client (a few at a time, so bcrypt does not stall them all).
say("connecting \(options.clients) clients…")
var clients: [RemoteChatService] = []
var users: [SignedIn] = []
let started = ContinuousClock.now
try await withThrowingTaskGroup(of: (Int, RemoteChatService, SignedIn).self) { group in
    var next = 0
    func add() {
        let index = next
        next += 1
        group.addTask {
            let service = RemoteChatService(url: options.url, folder: nil, connectTimeout: .seconds(60))
            let signedIn = try await service.register(
                Registration(email: "load-\(run)-\(index)@example.com", password: "load-password", handle: "l\(run)-\(index)"))
            return (index, service, signedIn)
        }
    }
    for _ in 0..<min(32, options.clients) { add() }
    var byIndex: [Int: (RemoteChatService, SignedIn)] = [:]
    while let (index, service, signedIn) = try await group.next() {
        byIndex[index] = (service, signedIn)
        if next < options.clients { add() }
    }
    for index in 0..<options.clients {
        clients.append(byIndex[index]!.0)
        users.append(byIndex[index]!.1)
    }
}
say("connected in \(ContinuousClock.now - started)")

if let idle = options.idle {
    print("idle: \(options.clients) signed-in sessions held for \(idle) s")
    try await Task.sleep(for: .seconds(idle))
    exit(0)
}

// Groups: client i belongs to group i % G; the first member creates it.
var groupOf: [ChatID] = []
var groupIDs: [ChatID] = []
for index in 0..<options.groups {
    groupIDs.append(try await clients[index].createGroup(handle: "load-\(run)-\(index)", title: nil, isPublic: true).id)
}
for index in 0..<options.clients {
    let group = index % options.groups
    if index >= options.groups { _ = try await clients[index].joinGroup(handle: "load-\(run)-\(group)") }
    groupOf.append(groupIDs[group])
}

// Everyone listens; messages carry their send time.
for client in clients {
    let events = client.events
    Task {
        for await event in events {
            guard case .message(let message) = event, message.message.text.hasPrefix("t=") else { continue }
            if let sent = Int64(message.message.text.dropFirst(2).prefix { $0 != " " }) { tally.delivered(latency: microsNow() - sent) }
        }
    }
}

// Senders: the first `senders` members of each group.
var senders: [(RemoteChatService, ChatID)] = []
for index in 0..<options.clients where index / options.groups < options.senders {
    senders.append((clients[index], groupOf[index]))
}
try await Task.sleep(for: .milliseconds(500))
tally.reset()
let senderCount = senders.count
let deadline = ContinuousClock.now + .milliseconds(Int64(options.seconds * 1000))
let begin = ContinuousClock.now
await withTaskGroup(of: Void.self) { group in
    for (sender, chat) in senders {
        group.addTask { [deadline] in
            if options.rate > 0 {
                // Fixed rate: each sender sends its share on schedule, without waiting for acks.
                let interval = Duration.microseconds(Int64(1_000_000 * Double(senderCount) / options.rate))
                var due = ContinuousClock.now
                await withTaskGroup(of: Void.self) { inner in
                    while due < deadline {
                        try? await Task.sleep(until: due, clock: .continuous)
                        inner.addTask {
                            do {
                                _ = try await sender.sendMessage(to: .chat(chat), text: "t=\(microsNow()) load", clientID: nil)
                                tally.acknowledged()
                            } catch { tally.failed() }
                        }
                        due += interval
                    }
                }
            } else {
                while ContinuousClock.now < deadline {
                    do {
                        _ = try await sender.sendMessage(to: .chat(chat), text: "t=\(microsNow()) load", clientID: nil)
                        tally.acknowledged()
                    } catch { tally.failed() }
                }
            }
        }
    }
}
let elapsed = ContinuousClock.now - begin
try await Task.sleep(for: .seconds(1))  // let the last deliveries arrive
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let result = tally.snapshot
let sorted = result.latencies.sorted()
func percentile(_ p: Double) -> String {
    guard !sorted.isEmpty else { return "-" }
    return String(format: "%.2f ms", Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000)
}
print(
    "clients \(options.clients) groups \(options.groups) senders \(senders.count) rate \(options.rate > 0 ? String(Int(options.rate)) + "/s" : "as fast as acknowledged")"
)
print(String(format: "acknowledged sends: %d (%.0f/s), failed: %d", result.acknowledged, Double(result.acknowledged) / seconds, result.failed))
print(String(format: "delivered messages: %d (%.0f/s)", result.delivered, Double(result.delivered) / seconds))
print("delivery latency p50 \(percentile(0.50)) p95 \(percentile(0.95)) p99 \(percentile(0.99))")
for client in clients { await client.close() }
