import Foundation
import NIOCore
import NIOPosix

/// A bench run's state. Every field is touched on `loop` only (by the members' handlers,
/// which live on it, and by its timers); the async side just starts the steps and waits
/// on their promises.
final class BenchRun: @unchecked Sendable {
    let plan: BenchPlan
    let loop: any EventLoop
    private var members: [BenchMember?]
    private var setup: EventLoopPromise<Void>
    private var registered = 0
    private var registering = 0
    private var waitingToRegister: [BenchMember] = []
    private var joined = 0
    private(set) var chat = 0

    private var measuring = false
    private var sent = 0
    private var figures = BenchFigures()
    private var start = NIODeadline.now()
    private var finish: EventLoopPromise<BenchFigures>?
    private var progressAt = NIODeadline.now()

    init(plan: BenchPlan, loop: any EventLoop) {
        self.plan = plan
        self.loop = loop
        members = Array(repeating: nil, count: plan.members)
        setup = loop.makePromise()
    }

    /// Connects every member, one after another, and brings each into the group as soon
    /// as it is connected: an IRC member registers at once, Parley's sign up eight at a
    /// time (so password hashing does not stall them all).
    func connectAll() async throws {
        let plan = plan
        for index in 0..<plan.members {
            _ = try await ClientBootstrap(group: loop)
                .channelOption(.tcpOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(BenchMember(run: self, index: index, proto: plan.proto))
                    }
                }
                .connect(host: plan.host, port: plan.port).get()
        }
        let timeout = loop.scheduleTask(in: .seconds(120)) { [self] in
            setup.fail(BenchError("bench: the members were not all in the group within 120 s"))
        }
        try await setup.futureResult.get()
        timeout.cancel()
        // Let the joins' own events drain before the clock starts.
        try await Task.sleep(for: .milliseconds(500))
    }

    func closeAll() async throws {
        try await loop.submit { [self] in members.forEach { $0?.close() } }.get()
        try await Task.sleep(for: .milliseconds(50))
    }

    /// Sends the messages, waits for every acknowledgement and for the deliveries they
    /// promise (at most 10 s past the last acknowledgement), and returns the figures.
    func measure() async throws -> BenchFigures {
        try await loop.flatSubmit { [self] in
            let promise = loop.makePromise(of: BenchFigures.self)
            finish = promise
            measuring = true
            start = .now()
            progressAt = start
            watch()
            if plan.rate > 0 {
                tick()
            } else {
                for sender in 0..<plan.senders { sendNext(from: sender, due: nil) }
            }
            return promise.futureResult
        }.get()
    }

    // MARK: Called by the members, on the loop

    func attached(_ member: BenchMember) { members[member.index] = member }

    func failed(_ why: String) {
        say("bench: \(why)")
        setup.fail(BenchError(why))
        if let finish {
            self.finish = nil
            finish.fail(BenchError(why))
        }
    }

    /// IRC: a member is in the channel.
    func inChannel() {
        joined += 1
        if joined == plan.members { setup.succeed() }
    }

    /// Parley: a member's socket is upgraded and wants to sign up.
    func wantsToRegister(_ member: BenchMember) {
        waitingToRegister.append(member)
        registerMore()
    }

    /// Parley: a member has signed up; once all have, the first makes the group.
    func registeredOne() {
        registering -= 1
        registered += 1
        registerMore()
        if registered == plan.members { members[0]?.createGroup(handle: "b\(plan.tag)") }
    }

    /// Parley: the group is made; the others join it.
    func groupMade(_ id: Int) {
        chat = id
        joined = 1
        for member in members.dropFirst() { member?.joinGroup(handle: "b\(plan.tag)") }
    }

    func joinedGroup() {
        joined += 1
        if joined == plan.members { setup.succeed() }
    }

    /// `sentAt`: the send's stamp (its scheduled time at a fixed rate), when known.
    func acknowledged(by sender: Int, ok: Bool, sentAt: Int64?) {
        guard measuring, sender < plan.senders else { return }
        if ok { figures.acknowledged += 1 } else { figures.errors += 1 }
        if ok, let sentAt { figures.ackLatencies.append(Self.micros() - sentAt) }
        progressAt = .now()
        if figures.acknowledged + figures.errors == plan.messages {
            figures.seconds = Double((progressAt - start).nanoseconds) / 1e9
            drain(until: progressAt + .seconds(10))
        } else if plan.rate <= 0 {
            sendNext(from: sender, due: nil)
        }
    }

    func delivered(sentAt: Int64) {
        guard measuring else { return }
        figures.delivered += 1
        figures.latencies.append(Self.micros() - sentAt)
        if plan.keepsDeliveries { figures.sendTimes.append(sentAt - Int64(start.uptimeNanoseconds / 1000)) }
    }

    static func micros() -> Int64 { Int64(NIODeadline.now().uptimeNanoseconds / 1000) }

    // MARK: Sending

    private func sendNext(from sender: Int, due: Int64?) {
        guard sent < plan.messages, let member = members[sender] else { return }
        sent += 1
        member.send(stamp: due ?? Self.micros(), number: sent)
    }

    /// The fixed rate: message i is due at start + i / rate; each tick sends what is due.
    private func tick() {
        guard finish != nil else { return }
        let interval = 1e9 / plan.rate
        let now = NIODeadline.now()
        while sent < plan.messages {
            let due = start + .nanoseconds(Int64(Double(sent) * interval))
            guard due <= now else {
                loop.scheduleTask(deadline: due) { [self] in tick() }
                return
            }
            figures.lateness.append(Int64((now - due).nanoseconds / 1000))
            sendNext(from: sent % plan.senders, due: Int64(due.uptimeNanoseconds / 1000))
        }
    }

    /// Ends the run if nothing was acknowledged for 30 s.
    private func watch() {
        loop.scheduleTask(in: .seconds(1)) { [self] in
            guard let finish, figures.seconds == 0 else { return }
            if NIODeadline.now() - progressAt > .seconds(30) {
                figures.seconds = Double((progressAt - start).nanoseconds) / 1e9
                say("bench: no acknowledgement for 30 s; \(plan.messages - figures.acknowledged - figures.errors) sends unanswered")
                figures.errors = plan.messages - figures.acknowledged
                complete(finish)
            } else {
                watch()
            }
        }
    }

    private func drain(until deadline: NIODeadline) {
        guard let finish else { return }
        if figures.delivered >= figures.acknowledged * (plan.members - 1) || NIODeadline.now() >= deadline {
            complete(finish)
        } else {
            loop.scheduleTask(in: .milliseconds(5)) { [self] in drain(until: deadline) }
        }
    }

    private func complete(_ promise: EventLoopPromise<BenchFigures>) {
        finish = nil
        measuring = false
        figures.missing = max(0, figures.acknowledged * (plan.members - 1) - figures.delivered)
        promise.succeed(figures)
    }

    private func registerMore() {
        while registering < 8, !waitingToRegister.isEmpty {
            registering += 1
            waitingToRegister.removeFirst().register()
        }
    }
}
