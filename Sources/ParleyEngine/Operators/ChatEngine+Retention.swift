import Foundation
import ParleyCore
import ParleyStore

/// What one retention pass deleted.
public struct RetentionPass: Sendable, Equatable {
    public var messages = 0
    public var media = 0
    public var seconds = 0.0
}

/// Retention: the server keeps messages `retentionDays` (none: for good), a group its
/// own days (never longer than the server's); older ones are deleted for good, with
/// their media, search entries, mentions and reactions, in small batches that let sends
/// in between.
extension ChatEngine {
    /// Deletes what the policies no longer keep, batch by batch, until none is left.
    @discardableResult
    public func applyRetention() async throws -> RetentionPass {
        let started = ContinuousClock.now
        let now = self.now
        var pass = RetentionPass()
        func drain(_ chat: ChatID?, days: Int) async throws {
            let cutoff = now.addingTimeInterval(-Double(days) * 86400)
            while !Task.isCancelled {
                let began = ContinuousClock.now
                let batch = try await store.expireMessages(
                    sentBefore: cutoff, in: chat, limit: configuration.retentionBatch, at: now)
                pass.messages += batch.messages
                pass.media += batch.media
                guard batch.messages > 0 else { break }
                // The store's writer is the sends' too: the sweep takes at most a share of
                // its time (`retentionShare`), resting between batches for the rest.
                let took = ContinuousClock.now - began
                let rest = took * ((1 - configuration.retentionShare) / configuration.retentionShare)
                try await Task.sleep(for: max(rest, .milliseconds(1)))
            }
        }
        let server = configuration.retentionDays
        if let server { try await drain(nil, days: server) }
        for (chat, days) in try await store.retentionPolicies() {
            let effective = min(days, server ?? days)
            // The server's own pass took what it keeps no longer.
            if let server, effective >= server { continue }
            try await drain(chat, days: effective)
        }
        if pass.media > 0 { _ = try await sweepMedia() }
        pass.seconds = (ContinuousClock.now - started).seconds
        return pass
    }

    /// Runs `applyRetention` every `retentionInterval` until cancelled, handing each
    /// pass that deleted something to `report`.
    public func runRetention(report: @Sendable (Result<RetentionPass, any Error>) -> Void) async {
        while !Task.isCancelled {
            do {
                let pass = try await applyRetention()
                if pass.messages > 0 { report(.success(pass)) }
            } catch {
                report(.failure(error))
            }
            do { try await Task.sleep(for: configuration.retentionInterval) } catch { return }
        }
    }
}
