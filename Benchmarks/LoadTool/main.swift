import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import ParleyClient
import ParleyCore
import Synchronization

// parley-load: opens N clients of a Parley server across G groups and sends as fast as
// acknowledged or at a fixed rate; reports acknowledged sends/s, delivered messages/s,
// and delivery latency percentiles. With --idle, just holds N signed-in sessions open.
// `parley-load --help` lists the options.
//
//   parley-load --url ws://127.0.0.1:7878 --clients 20 --groups 1 --senders 5 --seconds 10
//   parley-load --url ws://127.0.0.1:7878 --clients 50 --senders 10 --rate 2000 --seconds 10
//   parley-load --url ws://127.0.0.1:7878 --clients 10000 --idle 30

struct LoadOptions: ParsableCommand, Sendable {
    static let configuration = CommandConfiguration(
        commandName: "parley-load",
        abstract: "Load a Parley server: members in groups sending, as fast as acknowledged or at a fixed rate.",
        discussion: """
            Reports acknowledged sends/s, delivered messages/s and delivery latency percentiles on stdout; \
            progress goes to stderr. Each run signs up its own users, so runs never collide.
            """)

    @Option(help: "The server's WebSocket URL; several nodes comma-separated (member i talks to node i % NODES).")
    var url = "ws://127.0.0.1:7878"
    @Option(help: "Members in all, each a signed-up user with one connection.") var clients = 20
    @Option(help: "Groups; member i joins group i % GROUPS.") var groups = 1
    @Option(help: "Members of each group that send.") var senders = 5
    @Option(help: "Messages per second across all senders (0: each sends when its last send is acknowledged).") var rate = 0.0
    @Option(help: "How long to measure, in seconds.") var seconds = 10.0
    @Option(help: "Instead of sending, hold the sessions open this many seconds (for memory figures).") var idle: Double?
    @Option(help: ArgumentHelp("For a wss:// URL: trust the server's certificate when this CA signed it.", valueName: "PEM"))
    var caFile: String?

    // The crowd (scripts/crowd.sh): see Crowd.swift.
    @Option(help: "Crowd: sign up and hold this many sessions, until --until's file exists.") var crowd: Int?
    @Option(help: "Crowd and probe: the local address connections come from (127.0.0.2, …).") var from: String?
    @Option(help: "Crowd and probe: the public group the first --group-members sessions join.") var group: String?
    @Option(help: "Crowd: how many of this process's sessions join --group.") var groupMembers = 0
    @Flag(help: "Crowd: the first session creates --group before the others join.") var createGroup = false
    @Option(help: "Crowd: hold until this file exists, then print delivery times and exit.") var until: String?
    @Option(help: "Crowd: sign-ups in flight at once.") var parallel = 4
    @Option(help: "Probe: this many newcomers sign in and send once, one after another; then messages to --group.")
    var probe: Int?
    @Option(help: "Probe: messages sent to --group, 100 ms apart.") var groupMessages = 50

    // Bench mode (scripts/side-by-side.sh): see Bench.swift.
    @Option(help: "Bench: one group of --clients members, --senders of them sending this many messages in all (ws:// or irc:// --url).")
    var messages: Int?
    @Option(help: ArgumentHelp("Bench: the server's processes, whose CPU and peak memory are reported.", valueName: "PID[,PID…]"))
    var serverPID: String?
    @Option(help: "Bench: the run's label in its JSON line.") var label: String?
    @Option(help: ArgumentHelp("Bench: also append the JSON line to this file.", valueName: "FILE")) var json: String?
    @Option(help: ArgumentHelp("Bench: write each delivery's send time and latency (µs, tab-separated) to this file.", valueName: "FILE"))
    var deliveries: String?

    func validate() throws {
        guard (1...100_000).contains(clients), (1...clients).contains(groups), senders >= 1 else {
            throw ValidationError("--clients is 1 to 100000, --groups 1 to --clients, --senders at least 1")
        }
        guard rate >= 0, rate.isFinite, seconds > 0, seconds <= 86_400, (idle ?? 1) > 0, (idle ?? 1) <= 86_400 else {
            throw ValidationError("--rate is 0 or more, --seconds and --idle above 0 and at most a day")
        }
        for node in nodes where messages == nil {
            guard let parsed = URL(string: node), parsed.host != nil, ["ws", "wss"].contains(parsed.scheme ?? "") else {
                throw ValidationError("--url is ws://HOST:PORT or wss://HOST:PORT, or several of them comma-separated")
            }
        }
    }

    /// The nodes named by `--url`.
    var nodes: [String] { url.split(separator: ",").map(String.init) }

    /// The node member `index` talks to.
    func node(of index: Int) -> String { nodes[index % nodes.count] }
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
    func delivered(latency: Int64) {
        state.withLock {
            $0.delivered += 1
            $0.latencies.append(latency)
        }
    }
    func acknowledged() { state.withLock { $0.acknowledged += 1 } }
    func failed(_ error: any Error) {
        let first = state.withLock { state in
            state.failed += 1
            return state.failed == 1
        }
        if first { say("first failed send: \(error)") }
    }
    func reset() { state.withLock { $0 = State() } }
    var snapshot: (acknowledged: Int, delivered: Int, failed: Int, latencies: [Int64]) {
        state.withLock { ($0.acknowledged, $0.delivered, $0.failed, $0.latencies) }
    }
}

/// A member's connection during the measurement: a TCP connection on the tool's one
/// event loop, upgraded by hand, whose frames are scanned for bytes instead of decoded,
/// so the tool spends as little of the shared CPU as it can (with WSClient's task per
/// connection it used as much as the server).
final class RawClient: Sendable {
    private let channel: any Channel
    let acknowledgements: AsyncStream<Bool>
    private let nextID = Atomic<Int>(1)

    init(url: String, token: String, trust: ServerTrust, tally: Tally) async throws {
        guard let address = URL(string: url), let host = address.host, let port = address.port else {
            throw ParleyError(.invalidArgument, "bad url \(url)")
        }
        let tls = try address.scheme == "wss" ? NIOSSLContext(configuration: trust.configuration()) : nil
        let (acknowledgements, acks) = AsyncStream.makeStream(of: Bool.self)
        let (ready, signedIn) = AsyncStream.makeStream(of: Bool.self)
        self.acknowledgements = acknowledgements
        channel = try await ClientBootstrap(group: loadLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: host)) }
                    try channel.pipeline.syncOperations.addHandler(
                        FrameScanner(
                            tally: tally, onReady: { signedIn.yield(true) }, onAck: { acks.yield($0) },
                            onClose: {
                                signedIn.finish()
                                acks.finish()
                            }))
                }
            }
            .connect(host: host, port: port).get()
        try await channel.writeAndFlush(ServerFrames.upgradeRequest(host: host, port: port))
        try await channel.writeAndFlush(Self.masked(#"{"id":0,"op":"resume","args":{"token":"\#(token)"}}"#))
        var iterator = ready.makeAsyncIterator()
        guard await iterator.next() == true else { throw CancellationError() }
    }

    func send(chat: ChatID) async throws {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let frame =
            #"{"id":\#(id),"op":"send","args":{"chat":\#(chat.rawValue),"text":"t=\#(microsNow()) load","client_id":"\#(id)-\#(run)"}}"#
        try await channel.writeAndFlush(Self.masked(frame))
    }

    func close() async {
        var close = ByteBuffer(bytes: [0x88, 0x82, 0, 0, 0, 0])
        close.writeInteger(UInt16(1000))
        try? await channel.writeAndFlush(close)
        try? await Task.sleep(for: .milliseconds(10))
        try? await channel.close()
    }

    /// A client's text frame, masked (with a zero key, which leaves the payload as it is).
    static func masked(_ text: String) -> ByteBuffer {
        let payload = Array(text.utf8)
        var frame = ByteBuffer()
        frame.writeInteger(UInt8(0x81))
        if payload.count < 126 {
            frame.writeInteger(UInt8(0x80 | payload.count))
        } else {
            frame.writeInteger(UInt8(0x80 | 126))
            frame.writeInteger(UInt16(payload.count))
        }
        frame.writeInteger(UInt32(0))
        frame.writeBytes(payload)
        return frame
    }
}

/// A client's side of a server's WebSocket: hands each text frame's payload to `text`
/// (a subclass's), answers pings, and calls `onClose` when the connection ends.
class ServerFrameHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let onClose: @Sendable () -> Void
    private var frames = ServerFrames()

    init(onClose: @escaping @Sendable () -> Void) {
        self.onClose = onClose
    }

    /// One text frame from the server.
    func text(_ payload: ByteBufferView) {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        frames.append(unwrapInboundIn(data))
        frames.read(answering: context) { text($0) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        onClose()
        context.fireChannelInactive()
    }
}

/// Reads the upgrade response, then server frames: an event (a frame with a "pos")
/// counts as delivered with its latency; the first reply means signed in; later replies
/// are acknowledgements; a ping is answered.
final class FrameScanner: ServerFrameHandler {
    private let tally: Tally
    private let onReady: @Sendable () -> Void
    private let onAck: @Sendable (Bool) -> Void
    private var signedIn = false

    init(
        tally: Tally, onReady: @escaping @Sendable () -> Void, onAck: @escaping @Sendable (Bool) -> Void,
        onClose: @escaping @Sendable () -> Void
    ) {
        self.tally = tally
        self.onReady = onReady
        self.onAck = onAck
        super.init(onClose: onClose)
    }

    override func text(_ payload: ByteBufferView) {
        if Self.find(#""pos":"#, in: payload) != nil {
            if let sent = Self.sendTime(in: payload) { tally.delivered(latency: microsNow() - sent) }
        } else if !signedIn {
            signedIn = true
            onReady()
        } else {
            onAck(Self.find(#""ok":true"#, in: payload) != nil)
        }
    }

    static func sendTime(in bytes: ByteBufferView) -> Int64? {
        let marker = #""text":"t="#
        guard let start = find(marker, in: bytes) else { return nil }
        var index = bytes.startIndex + start + marker.utf8.count
        return number(in: bytes, at: &index)
    }

    /// The decimal number at `index` (moved past it); nil without a digit there, or when
    /// it would not fit.
    static func number(in bytes: ByteBufferView, at index: inout ByteBufferView.Index) -> Int64? {
        var value: Int64 = 0
        let first = index
        while index < bytes.endIndex, let digit = bytes[index].wholeNumberValue {
            guard value <= (Int64.max - digit) / 10 else { return nil }
            value = value * 10 + digit
            index += 1
        }
        return index > first ? value : nil
    }

    /// The offset of `needle` in `bytes`.
    static func find(_ needle: String, in bytes: ByteBufferView) -> Int? {
        bytes.withUnsafeBytes { haystack in
            var needle = needle
            return needle.withUTF8 { needle -> Int? in
                guard needle.count <= haystack.count else { return nil }
                let first = needle[0]
                var index = 0
                while index <= haystack.count - needle.count {
                    if haystack[index] == first, memcmp(haystack.baseAddress! + index, needle.baseAddress!, needle.count) == 0 {
                        return index
                    }
                    index += 1
                }
                return nil
            }
        }
    }
}

/// The server's side of a WebSocket as a client reads it: the upgrade response, then
/// frames (servers do not mask); pings are answered here.
struct ServerFrames {
    /// The request that opens Parley's WebSocket at `host:port`.
    static func upgradeRequest(host: String, port: Int) -> ByteBuffer {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        return ByteBuffer(
            string:
                "GET /v1/ws HTTP/1.1\r\nHost: \(host):\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
    }

    private var buffer = ByteBuffer()
    private var upgraded = false

    mutating func append(_ incoming: ByteBuffer) {
        var incoming = incoming
        buffer.writeBuffer(&incoming)
    }

    /// Hands each whole text frame's payload to `text`, answers pings on `context`.
    mutating func read(answering context: ChannelHandlerContext, text: (ByteBufferView) -> Void) {
        if !upgraded {
            guard let end = FrameScanner.find("\r\n\r\n", in: buffer.readableBytesView) else { return }
            buffer.moveReaderIndex(forwardBy: end + 4)
            upgraded = true
        }
        while let (opcode, payload) = nextFrame() {
            switch opcode {
            case 0x1:
                text(payload)
            case 0x9:
                var pong = ByteBuffer(bytes: [0x8A, UInt8(0x80 | payload.count), 0, 0, 0, 0])
                pong.writeBytes(payload)
                context.writeAndFlush(NIOAny(pong), promise: nil)
            default:
                break
            }
        }
        buffer.discardReadBytes()
    }

    /// The next whole frame's opcode and payload, if it is in.
    private mutating func nextFrame() -> (UInt8, ByteBufferView)? {
        guard let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let second = buffer.getInteger(at: buffer.readerIndex + 1, as: UInt8.self)
        else { return nil }
        var header = 2
        var length = Int(second & 0x7F)
        if length == 126 {
            guard let long = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt16.self) else { return nil }
            length = Int(long)
            header = 4
        } else if length == 127 {
            guard let long = buffer.getInteger(at: buffer.readerIndex + 2, as: UInt64.self) else { return nil }
            length = Int(long)
            header = 10
        }
        guard buffer.readableBytes >= header + length else { return nil }
        let payload = buffer.readableBytesView.dropFirst(header).prefix(length)
        buffer.moveReaderIndex(forwardBy: header + length)
        return (first & 0x0F, payload)
    }
}

/// The tool's one event loop for the members' connections (the other core is the server's).
let loadLoop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

extension UInt8 {
    var wholeNumberValue: Int64? { (48...57).contains(self) ? Int64(self - 48) : nil }
}

let options = LoadOptions.parseOrExit()
let trust = ServerTrust(caFile: options.caFile)
if let crowd = options.crowd {
    try await Crowd.hold(crowd, options: options)
    exit(0)
}
if let probe = options.probe {
    try await Crowd.probe(probe, options: options)
    exit(0)
}
if options.messages != nil {
    do {
        try await Bench.run(options)
        exit(0)
    } catch {
        say("parley-load: \(error)")
        exit(1)
    }
}
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

/// Results go to stdout unbuffered, so a script can watch for them.
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
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
            let service = RemoteChatService(url: options.node(of: index), folder: nil, trust: trust, connectTimeout: .seconds(60))
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
    report("idle: \(options.clients) signed-in sessions held for \(idle) s")
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

// From here every member talks over a raw connection signed in with its token.
for client in clients { await client.close() }
var members: [RawClient] = []
for (index, user) in users.enumerated() {
    members.append(try await RawClient(url: options.node(of: index), token: user.token, trust: trust, tally: tally))
}

// Senders: the first `senders` members of each group.
var senders: [(RawClient, ChatID)] = []
for index in 0..<options.clients where index / options.groups < options.senders {
    senders.append((members[index], groupOf[index]))
}
try await Task.sleep(for: .milliseconds(500))
tally.reset()
let senderCount = senders.count
let deadline = ContinuousClock.now + .milliseconds(Int64(options.seconds * 1000))
await withTaskGroup(of: Void.self) { group in
    for (sender, chat) in senders {
        group.addTask { [deadline] in
            if options.rate > 0 {
                Task {
                    for await ok in sender.acknowledgements {
                        if ok { tally.acknowledged() } else { tally.failed(ParleyError(.internalError, "a send was refused")) }
                    }
                }
                // Fixed rate: each sender sends its share on schedule, without waiting for acks.
                let interval = Duration.microseconds(Int64(1_000_000 * Double(senderCount) / options.rate))
                var due = ContinuousClock.now
                while due < deadline {
                    try? await Task.sleep(until: due, clock: .continuous)
                    try? await sender.send(chat: chat)
                    due += interval
                }
            } else {
                // As fast as acknowledged: each sender waits for its ack before the next.
                var acks = sender.acknowledgements.makeAsyncIterator()
                while ContinuousClock.now < deadline {
                    guard (try? await sender.send(chat: chat)) != nil, let ok = await acks.next() else { break }
                    if ok { tally.acknowledged() } else { tally.failed(ParleyError(.internalError, "a send was refused")) }
                }
            }
        }
    }
    try? await Task.sleep(until: deadline + .seconds(2), clock: .continuous)
    for member in members { await member.close() }
}
let seconds = options.seconds
let result = tally.snapshot
let sorted = result.latencies.sorted()
func percentile(_ p: Double) -> String {
    guard !sorted.isEmpty else { return "-" }
    return String(format: "%.2f ms", Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000)
}
report(
    "clients \(options.clients) groups \(options.groups) senders \(senders.count) rate \(options.rate > 0 ? String(Int(options.rate)) + "/s" : "as fast as acknowledged")"
)
report(
    String(format: "acknowledged sends: %d (%.0f/s), failed: %d", result.acknowledged, Double(result.acknowledged) / seconds, result.failed)
)
report(String(format: "delivered messages: %d (%.0f/s)", result.delivered, Double(result.delivered) / seconds))
report("delivery latency p50 \(percentile(0.50)) p95 \(percentile(0.95)) p99 \(percentile(0.99))")
