import Foundation
import GRDB
import ParleyClient
import ParleyCore
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct CrashTests {
    /// SIGKILL under load: after a restart on the same folder every acknowledged
    /// message is there once with the sequence number it was acknowledged with, and
    /// every send that was in flight, retried by the client with its client id, once.
    @Test func aServerKilledWhileClientsSendLosesNoAcknowledgedMessage() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("parley-crash-\(UUID().uuidString)")
        // The server comes back on the same port, so it takes one below the kernel's
        // ephemeral range, where no other test's socket can take it meanwhile.
        var started: ServeProcess?
        for _ in 0..<50 where started == nil {
            let port = Int.random(in: 20_000..<32_000)
            started = try? await onOwnThread { try ServeProcess.start(data: data, port: port, arguments: ["--max-registrations", "0"]) }
        }
        let first = try #require(started)
        let url = "ws://127.0.0.1:\(first.port)"

        var clients: [RemoteChatService] = []
        for index in 0..<4 {
            let service = RemoteChatService(url: url, folder: nil, connectTimeout: .seconds(120))
            _ = try await service.register(
                Registration(email: "s\(index)@example.com", password: "password-\(index)", handle: "sender\(index)"))
            clients.append(service)
        }
        let group = try await clients[0].createGroup(handle: "crash", title: nil, isPublic: true)
        for client in clients.dropFirst() { _ = try await client.joinGroup(handle: "crash") }

        let acknowledged = Shared<[String: Int64]>([:])
        let pending = Shared<Set<String>>([])
        let senders = clients.enumerated().map { index, client in
            Task {
                for number in 0..<5000 {
                    let clientID = "s\(index)-\(number)"
                    do {
                        let message = try await client.sendMessage(to: .chat(group.id), text: "message \(clientID)", clientID: clientID)
                        acknowledged.withLock { $0[clientID] = message.seq }
                    } catch let error as ParleyError where error.code == .pending {
                        // Queued in the client's outbox: it goes again, same id, on reconnect.
                        pending.withLock { _ = $0.insert(clientID) }
                        return
                    } catch {
                        Issue.record("send \(clientID) failed: \(error)")
                        return
                    }
                }
            }
        }
        while acknowledged.withLock({ $0.count }) < 300 { try await Task.sleep(for: .milliseconds(10)) }
        await onOwnThread { first.kill() }
        for sender in senders { await sender.value }
        let acknowledgedBefore = acknowledged.withLock { $0 }
        let inFlight = pending.withLock { $0 }
        #expect(inFlight.count == 4, "each sender had a send in flight when the server died")

        let second = try await onOwnThread { try ServeProcess.start(data: data, port: first.port) }
        // Each client reconnects and empties its outbox.
        for client in clients {
            _ = try await client.chats()
            while await !client.queued().isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        for client in clients { await client.close() }
        await onOwnThread { second.stop() }

        let queue = try DatabaseQueue(path: data.appendingPathComponent("parley.sqlite").path)
        let rows = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT client_id, seq FROM message WHERE chat_id = ?", arguments: [group.id.rawValue])
        }
        var stored: [String: [Int64]] = [:]
        for row in rows { stored[row[0] as String, default: []].append(row[1]) }
        for (clientID, seq) in acknowledgedBefore {
            #expect(stored[clientID] == [seq], "\(clientID) acknowledged as \(seq), stored as \(stored[clientID] ?? [])")
        }
        for clientID in inFlight {
            #expect(stored[clientID]?.count == 1, "\(clientID) in flight, stored \(stored[clientID]?.count ?? 0) times")
        }
        let sequence = rows.map { $0[1] as Int64 }.sorted()
        #expect(sequence == Array(1...Int64(rows.count)), "sequence numbers without gaps")
        try? FileManager.default.removeItem(at: data)
    }
}
