import Foundation
import ParleyCore
import ParleyProtocol

/// Sends through the outbox (`Outbox`, a file in the client's folder): a queue, sent one
/// at a time in the order queued by one sender (`flushOutbox`), so nothing queued later
/// goes before anything queued earlier, across reconnects and runs; kept until the server
/// acknowledges each, never stored twice.
extension Link {
    /// Queues a message and waits for the server's answer to it, which comes after the
    /// answers to everything queued before it. Without a connection (or when it drops
    /// first) it throws `pending`: the message stays queued and goes when the connection
    /// is back, in its place.
    func send(_ entry: Outbox.Entry) async throws -> Message {
        var entry = entry
        if entry.clientID == nil { entry.clientID = UUID().uuidString.lowercased() }
        let clientID = entry.clientID ?? ""
        try outbox.add(entry)
        // Held before waiting for the connection: the sender may answer it while this waits.
        let slot = AnswerSlot()
        answerSlots[clientID] = slot
        do {
            try await ready()
        } catch {
            answerSlots[clientID] = nil
            throw ParleyError(.pending, "not connected: the message is queued and will be sent when the connection is back")
        }
        startSending()
        if let result = slot.result { return try result.get() }
        return try await withCheckedThrowingContinuation { slot.waiter = $0 }
    }

    /// Starts the one sender unless it is running.
    func startSending() {
        guard !sending else { return }
        sending = true
        Task { await self.flushOutbox() }
    }

    /// The sender: the first queued message, then the next, until the queue is empty or
    /// the connection is gone (the rest wait for the next one, their callers told
    /// `pending`). A message the server refuses leaves the queue with its error.
    func flushOutbox() async {
        sending = true
        defer { sending = false }
        while let entry = outbox.entries.first {
            let clientID = entry.clientID ?? ""
            let attempt = generation
            do {
                let message: Message = try await exchange(OpDeclarations.send, entry)
                outbox.remove(clientID: entry.clientID)
                missed.saw(message)
                if let slot = answerSlots.removeValue(forKey: clientID) {
                    slot.settle(.success(message))
                } else {
                    onAcknowledged(message)
                }
            } catch let error as ParleyError where error.code == .unavailable || error.code == .notSignedIn {
                // Lost with the connection it was written on, and a new one is up: again.
                if generation != attempt, state == .ready || state == .handshaking { continue }
                let waiting = answerSlots
                answerSlots.removeAll()
                let pending = ParleyError(.pending, "the connection dropped: the message is queued and will be sent when it is back")
                for slot in waiting.values { slot.settle(.failure(pending)) }
                return
            } catch {
                outbox.remove(clientID: entry.clientID)
                if let slot = answerSlots.removeValue(forKey: clientID) {
                    slot.settle(.failure(error))
                } else {
                    onRejected(clientID, ParleyError(error))
                }
            }
        }
    }

    var queued: [Outbox.Entry] { outbox.entries }

    /// Waits until every queued send is acknowledged or refused; returns what is still
    /// queued once `offline` has passed without a connection (time connected, while the
    /// server answers, does not count).
    func drain(offline limit: Duration) async -> [Outbox.Entry] {
        var (away, last) = (Duration.zero, ContinuousClock.now)
        if !outbox.entries.isEmpty, state == .idle { start() }
        while !outbox.entries.isEmpty, away < limit, state != .closed {
            if state == .ready { startSending() }
            try? await Task.sleep(for: .milliseconds(50))
            let now = ContinuousClock.now
            if state != .ready { away += now - last }
            last = now
        }
        return outbox.entries
    }
}

/// Where the sender leaves the answer to one queued message for the caller of `send`,
/// who may come for it before or after it is there. Used inside the `Link` actor only.
final class AnswerSlot {
    var result: Result<Message, any Error>?
    var waiter: CheckedContinuation<Message, any Error>?

    func settle(_ result: Result<Message, any Error>) {
        guard self.result == nil else { return }
        self.result = result
        waiter?.resume(with: result)
        waiter = nil
    }
}
