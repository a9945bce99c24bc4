import Benchmark
import Foundation
import GRDB
import ParleyCore
import ParleyEngine
import ParleyTesting

/// What the benchmarks share, built once in their setup hooks.
final class Fixtures: @unchecked Sendable {
    static let shared = Fixtures()
    var world: TestWorld?
    var senders: [EngineSession] = []
    var group: ChatID?
    var groups: [ChatID] = []
    var reader: EngineSession?
    var bigChat: ChatID?
    var busyUser: EngineSession?
}

let bigChatSize: Int64 = 1_000_000
let sendsPerIteration = 1_000
let concurrentSenders = 50

let benchmarks: @Sendable () -> Void = {
    // As `parley` and `parley serve` do at start.
    Allocator.keepFreedMemory()
    let fixtures = Fixtures.shared
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .cpuTotal], timeUnits: .microseconds, maxDuration: .seconds(10), maxIterations: 2_000)

    // 1,000 committed sends per iteration from 50 concurrent senders, each in a group
    // of its own: the cost of storing, without fan-out.
    Benchmark(
        "Durable send x1000 (50 concurrent senders)", configuration: configuration,
        closure: { _ in try await sendConcurrently(fixtures) },
        setup: { try await prepareSenders(fixtures, sharedGroup: false) })

    // The same into one 50-member group whose members all have a live session reading
    // events: storing plus in-process fan-out to 50 sessions.
    Benchmark(
        "Send x1000 into a 50-member group, all live", configuration: configuration,
        closure: { _ in try await sendConcurrently(fixtures) },
        setup: { try await prepareSenders(fixtures, sharedGroup: true) })

    // One sender, one send at a time: the latency of a single committed send.
    Benchmark(
        "Durable send, one at a time", configuration: configuration,
        closure: { benchmark in
            guard let group = fixtures.group, let sender = fixtures.senders.first else { return }
            _ = try await sender.sendMessage(to: .chat(group), text: "benchmark message", clientID: nil)
        },
        setup: {
            let world = try TestWorld()
            let owner = try await world.signUp("owner")
            let group = try await owner.createGroup(handle: "bench", title: nil, isPublic: true)
            fixtures.world = world
            fixtures.group = group.id
            fixtures.senders = [owner]
        })

    // A page of 50 from a random point of a chat holding a million messages.
    Benchmark(
        "History page of 50 in a 1M-message chat", configuration: configuration,
        closure: { benchmark in
            guard let reader = fixtures.reader, let chat = fixtures.bigChat else { return }
            let before = Int64.random(in: 51...bigChatSize)
            benchmark.startMeasurement()
            let page = try await reader.history(chat: chat, limit: 50, before: before)
            benchmark.stopMeasurement()
            precondition(page.count == 50)
        },
        setup: {
            let world = try TestWorld()
            let reader = try await world.signUp("reader")
            let chat = try await reader.createGroup(handle: "big", title: nil, isPublic: true)
            try await fillChat(chat.id, author: try await reader.me().id, count: bigChatSize, databasePath: world.databasePath)
            fixtures.world = world
            fixtures.reader = reader
            fixtures.bigChat = chat.id
        })

    // The chat list of a user who is in 1,000 chats, each with messages and unread counts.
    Benchmark(
        "Chat list of a user in 1,000 chats", configuration: configuration,
        closure: { benchmark in
            guard let user = fixtures.busyUser else { return }
            let list = try await user.chats()
            precondition(list.count == 1_000)
        },
        setup: {
            let world = try TestWorld()
            let busy = try await world.signUp("busy")
            let friend = try await world.signUp("friend")
            let busyID = try await busy.me().id
            for index in 0..<1_000 {
                if index.isMultiple(of: 2) {
                    let group = try await friend.createGroup(handle: "g\(index)", title: "Group \(index)", isPublic: true)
                    _ = try await busy.joinGroup(handle: "g\(index)")
                    _ = try await friend.sendMessage(to: .chat(group.id), text: "hello group \(index)", clientID: nil)
                } else {
                    let peer = try await world.signUp("peer\(index)")
                    _ = try await peer.sendMessage(to: .user(busyID), text: "hello \(index)", clientID: nil)
                }
            }
            fixtures.world = world
            fixtures.busyUser = busy
        })
}

/// 50 signed-in senders, each in a group of its own or all in one, reading their events.
func prepareSenders(_ fixtures: Fixtures, sharedGroup: Bool) async throws {
    let world = try TestWorld()
    var senders: [EngineSession] = []
    var groups: [ChatID] = []
    for index in 0..<concurrentSenders {
        let sender = try await world.signUp("sender\(index)")
        if sharedGroup && index > 0 {
            _ = try await sender.joinGroup(handle: "shared")
            groups.append(groups[0])
        } else {
            groups.append(try await sender.createGroup(handle: sharedGroup ? "shared" : "own\(index)", title: nil, isPublic: true).id)
        }
        senders.append(sender)
        // Live sessions read their events; left unread they would pile up in memory.
        Task { for await _ in sender.events {} }
    }
    fixtures.world = world
    fixtures.senders = senders
    fixtures.groups = groups
}

func sendConcurrently(_ fixtures: Fixtures) async throws {
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        for (sender, group) in zip(fixtures.senders, fixtures.groups) {
            tasks.addTask {
                for _ in 0..<(sendsPerIteration / concurrentSenders) {
                    _ = try await sender.sendMessage(to: .chat(group), text: "benchmark message", clientID: nil)
                }
            }
        }
        try await tasks.waitForAll()
    }
}

/// Writes `count` messages straight into the database: building a million-message chat
/// through the engine would take most of a minute and measure nothing.
func fillChat(_ chat: ChatID, author: UserID, count: Int64, databasePath: String) async throws {
    let queue = try DatabaseQueue(path: databasePath)
    try await queue.write { db in
        let insert = try db.makeStatement(
            sql: "INSERT INTO message (chat_id, seq, sender_id, kind, text, sent_at) VALUES (?, ?, ?, 'text', ?, ?)")
        for seq in 1...count {
            try insert.execute(arguments: [chat.rawValue, seq, author.rawValue, "message number \(seq)", 1_800_000_000_000 + seq])
        }
        try db.execute(
            sql: "UPDATE chat SET last_seq = ?, last_message_id = (SELECT max(id) FROM message) WHERE id = ?",
            arguments: [count, chat.rawValue])
    }
    try queue.close()
}
