import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The crowd of scripts/crowd.sh: several `parley-load --crowd` processes, each from its
/// own loopback address, sign up and hold idle sessions (some of them members of one
/// large group) while a `parley-load --probe` process measures what a newcomer sees:
/// its sign-in and first send, and how long a message to the large group takes to
/// reach every member. Send times travel in the text as wall-clock microseconds, so
/// the holders (other processes) can tell each delivery's latency.
enum Crowd {
    static let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)

    /// Signs up `count` sessions (`--parallel` at a time: a server lets one address hold
    /// only so many sign-ups open), the first `groupMembers` of them into the group,
    /// prints `held N`, holds them until the `--until` file exists, then prints
    /// `delivered` and, for every group message a session received, `SENT:LATENCY` in
    /// microseconds.
    static func hold(_ count: Int, options: LoadOptions) async throws {
        guard count >= 1, count <= 100_000, let until = options.until else {
            throw ValidationError("--crowd is 1 to 100000 and needs --until")
        }
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let deliveries = Mutex<[(sent: Int64, latency: Int64)]>([])
        let record: @Sendable (Int64) -> Void = { sent in deliveries.withLock { $0.append((sent, wallMicros() - sent)) } }
        let url = options.node(of: 0)
        var sessions: [CrowdSession] = []
        // The group's creator first, so the others find it.
        if options.createGroup, let group = options.group {
            let owner = try await CrowdSession.signUp(url: url, from: options.from, name: "c\(run)-0", onMessage: record)
            try await owner.expectOK(#"{"id":2,"op":"create_group","args":{"handle":"\#(group)","is_public":true}}"#)
            sessions.append(owner)
            report("group ready")
        }
        let first = sessions.count
        try await withThrowingTaskGroup(of: CrowdSession.self) { tasks in
            var next = first
            func add() {
                let index = next
                next += 1
                tasks.addTask {
                    let session = try await CrowdSession.signUp(url: url, from: options.from, name: "c\(run)-\(index)", onMessage: record)
                    if index < options.groupMembers, let group = options.group {
                        try await session.expectOK(#"{"id":2,"op":"join_group","args":{"handle":"\#(group)"}}"#)
                    }
                    return session
                }
            }
            for _ in 0..<min(options.parallel, count - first) { add() }
            while let session = try await tasks.next() {
                sessions.append(session)
                if sessions.count % 1000 == 0 { say("\(options.from ?? "-"): \(sessions.count) signed in") }
                if next < count { add() }
            }
        }
        report("held \(sessions.count)")
        while !FileManager.default.fileExists(atPath: until) { try await Task.sleep(for: .milliseconds(200)) }
        let received = deliveries.withLock { $0 }
        report("delivered " + received.map { "\($0.sent):\($0.latency)" }.joined(separator: " "))
        withExtendedLifetime(sessions) {}
    }

    /// `count` newcomers, one after another: each connects, signs in (an account made
    /// beforehand), and sends one message to a small group of its own; the time from
    /// connecting to the send's acknowledgement. Then `--group-messages` messages to
    /// the large group, 100 ms apart.
    static func probe(_ count: Int, options: LoadOptions) async throws {
        guard (1...10_000).contains(count), let group = options.group else {
            throw ValidationError("--probe is 1 to 10000 and needs --group")
        }
        let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let url = options.node(of: 0)
        let ignore: @Sendable (Int64) -> Void = { _ in }
        // The accounts, and the small group they send to.
        let owner = try await CrowdSession.signUp(url: url, from: options.from, name: "p\(run)-owner", onMessage: ignore)
        let small = "probe-\(run)"
        try await owner.expectOK(#"{"id":2,"op":"create_group","args":{"handle":"\#(small)","is_public":true}}"#)
        let smallID = try await owner.chatID(of: small)
        for index in 0..<count {
            let account = try await CrowdSession.signUp(url: url, from: options.from, name: "p\(run)-\(index)", onMessage: ignore)
            try await account.expectOK(#"{"id":2,"op":"join_group","args":{"handle":"\#(small)"}}"#)
            await account.close()
        }
        var times: [Double] = []
        for index in 0..<count {
            let start = ContinuousClock.now
            let session = try await CrowdSession.connect(url: url, from: options.from, onMessage: ignore)
            try await session.expectOK(
                #"{"id":1,"op":"sign_in","args":{"login":"@p\#(run)-\#(index)","password":"crowd-password"}}"#)
            try await session.expectOK(#"{"id":2,"op":"send","args":{"chat":\#(smallID),"text":"hello"}}"#)
            times.append((ContinuousClock.now - start).milliseconds)
            await session.close()
        }
        times.sort()
        report(
            String(
                format: "newcomers %d: sign-in and first send p50 %.2f ms p99 %.2f ms max %.2f ms", count, percentile(times, 0.5),
                percentile(times, 0.99), times.last ?? 0))
        // The large group.
        try await owner.expectOK(#"{"id":3,"op":"join_group","args":{"handle":"\#(group)"}}"#)
        let chat = try await owner.chatID(of: group)
        for number in 0..<options.groupMessages {
            try await owner.expectOK(#"{"id":\#(10 + number),"op":"send","args":{"chat":\#(chat),"text":"t=\#(wallMicros()) crowd"}}"#)
            try await Task.sleep(for: .milliseconds(100))
        }
        report("group messages \(options.groupMessages)")
        await owner.close()
    }

    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

func wallMicros() -> Int64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

/// One session of the crowd over a raw connection: requests one at a time, replies in
/// order; the send time of each message event goes to `onMessage`.
final class CrowdSession: Sendable {
    private struct Replies {
        var waiting: CheckedContinuation<String?, Never>?
        var ready: [String] = []
        var closed = false
    }

    private let channel: any Channel
    private let replies = Mutex(Replies())

    private init(channel: any Channel) {
        self.channel = channel
    }

    static func connect(url: String, from source: String?, onMessage: @escaping @Sendable (Int64) -> Void) async throws -> CrowdSession {
        guard let address = URL(string: url), let host = address.host, let port = address.port else {
            throw ValidationError("bad url \(url)")
        }
        let box = Mutex<CrowdSession?>(nil)
        var bootstrap = ClientBootstrap(group: Crowd.loop)
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel = try await bootstrap.channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    CrowdScanner(
                        onReply: { reply in box.withLock { $0 }?.replied(reply) }, onMessage: onMessage,
                        onClose: { box.withLock { $0 }?.replied(nil) }))
            }
        }.connect(host: host, port: port).get()
        let session = CrowdSession(channel: channel)
        box.withLock { $0 = session }
        try await channel.writeAndFlush(ServerFrames.upgradeRequest(host: host, port: port))
        return session
    }

    /// Connects and makes an account named `name` (password `crowd-password`).
    static func signUp(url: String, from source: String?, name: String, onMessage: @escaping @Sendable (Int64) -> Void) async throws
        -> CrowdSession
    {
        let session = try await connect(url: url, from: source, onMessage: onMessage)
        let register = #"{"id":1,"op":"register","args":{"email":"\#(name)@example.com","password":"crowd-password","handle":"\#(name)"}}"#
        // An address may hold only so many sign-ups open at once: past them, wait and retry.
        for _ in 0..<100 {
            let reply = try await session.request(register)
            if reply?.contains(#""ok":true"#) == true { return session }
            guard reply?.contains(#""rate_limited""#) == true else {
                throw ValidationError("sign-up refused: \(reply?.prefix(200) ?? "closed")")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw ValidationError("sign-up still refused after 100 tries")
    }

    private func replied(_ reply: String?) {
        let waiting = replies.withLock { state -> CheckedContinuation<String?, Never>? in
            if reply == nil { state.closed = true }
            guard let waiting = state.waiting else {
                if let reply { state.ready.append(reply) }
                return nil
            }
            state.waiting = nil
            return waiting
        }
        waiting?.resume(returning: reply)
    }

    /// Sends `request` and returns its reply (nil once the connection is closed).
    func request(_ request: String) async throws -> String? {
        try await channel.writeAndFlush(RawClient.masked(request))
        return await withCheckedContinuation { continuation in
            let answer = replies.withLock { state -> String?? in
                if !state.ready.isEmpty { return .some(state.ready.removeFirst()) }
                if state.closed { return .some(nil) }
                state.waiting = continuation
                return .none
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// Sends `request` and fails unless it is answered `ok`.
    func expectOK(_ request: String) async throws {
        let reply = try await self.request(request)
        guard let reply, reply.contains(#""ok":true"#) else {
            throw ValidationError("refused: \(request.prefix(80)) → \(reply?.prefix(200) ?? "closed")")
        }
    }

    /// The id of the group `handle` (the `group` op).
    func chatID(of handle: String) async throws -> Int64 {
        let reply = try await request(#"{"id":4,"op":"group","args":{"handle":"\#(handle)"}}"#) ?? ""
        let object = (try? JSONSerialization.jsonObject(with: Data(reply.utf8))) as? [String: Any]
        guard let result = object?["result"] as? [String: Any], let id = (result["id"] ?? (result["chat"] as? [String: Any])?["id"]) as? Int
        else { throw ValidationError("no group \(handle): \(reply.prefix(200))") }
        return Int64(id)
    }

    func close() async {
        try? await channel.close()
    }
}

/// Server frames for a crowd session: events carrying a send time go to `onMessage`,
/// other events are ignored, replies go to `onReply`.
final class CrowdScanner: ServerFrameHandler {
    private let onReply: @Sendable (String?) -> Void
    private let onMessage: @Sendable (Int64) -> Void

    init(
        onReply: @escaping @Sendable (String?) -> Void, onMessage: @escaping @Sendable (Int64) -> Void,
        onClose: @escaping @Sendable () -> Void
    ) {
        self.onReply = onReply
        self.onMessage = onMessage
        super.init(onClose: onClose)
    }

    override func text(_ payload: ByteBufferView) {
        if FrameScanner.find(#""pos":"#, in: payload) != nil {
            if let sent = FrameScanner.sendTime(in: payload) { onMessage(sent) }
        } else {
            onReply(String(decoding: payload, as: UTF8.self))
        }
    }
}
