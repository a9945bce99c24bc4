import ParleyCore
import ParleyProtocol

/// Sends through the outbox (`Outbox`, a file in the client's folder): kept until the
/// server acknowledges them, sent again after a reconnect or on the next run, never
/// stored twice.
extension Link {
    /// Sends a message through the outbox: acknowledged now, or kept and sent after the
    /// reconnect (then it throws `pending`).
    func send(_ entry: Outbox.Entry) async throws -> Message {
        try outbox.add(entry)
        do {
            try await ready()
        } catch {
            throw ParleyError(.pending, "not connected: the message is queued and will be sent when the connection is back")
        }
        do {
            let message: Message = try await exchange(OpDeclarations.send, entry)
            outbox.remove(clientID: entry.clientID)
            missed.saw(message)
            return message
        } catch let error as ParleyError where error.code == .unavailable {
            throw ParleyError(.pending, "the connection dropped: the message is queued and will be sent when it is back")
        } catch {
            outbox.remove(clientID: entry.clientID)
            throw error
        }
    }

    /// Sends what waited in the outbox, in order, until one cannot go yet.
    func flushOutbox() async {
        for entry in outbox.entries {
            do {
                let message: Message = try await exchange(OpDeclarations.send, entry)
                outbox.remove(clientID: entry.clientID)
                missed.saw(message)
                onAcknowledged(message)
            } catch let error as ParleyError where error.code == .unavailable || error.code == .notSignedIn {
                return
            } catch {
                outbox.remove(clientID: entry.clientID)
                onRejected(entry.clientID ?? "", ParleyError(error))
            }
        }
    }

    var queued: [Outbox.Entry] { outbox.entries }

    /// Waits until every queued send is acknowledged or refused, or `limit` has passed;
    /// returns what is still queued.
    func drain(within limit: Duration) async -> [Outbox.Entry] {
        let deadline = ContinuousClock.now + limit
        if !outbox.entries.isEmpty, state == .idle { start() }
        while !outbox.entries.isEmpty, ContinuousClock.now < deadline, state != .closed {
            try? await Task.sleep(for: .milliseconds(50))
        }
        return outbox.entries
    }
}
