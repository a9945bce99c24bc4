import Foundation
import Logging
import ParleyEngine
import Prometheus
import ServiceLifecycle

/// The server's periodic chores: expired sessions and sign-in codes are deleted, and
/// uploads that no message or avatar took up are swept. Runs once at start, then every
/// `interval`, until the server stops; it is one of the server's services.
struct Upkeep: Service, CustomStringConvertible {
    var description: String { "upkeep" }

    let engine: ChatEngine
    let interval: Duration
    let metrics: ServerMetrics
    let logger: Logger

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let sessions = try await engine.purgeExpired()
                let media = try await engine.sweepMedia()
                metrics.purged.increment(by: Int64(sessions))
                metrics.swept.increment(by: Int64(media))
                if sessions + media > 0 { logger.info("upkeep: purged \(sessions) expired sessions and codes, \(media) unused uploads") }
            } catch {
                logger.warning("upkeep failed: \(error)")
            }
            guard (try? await cancelWhenGracefulShutdown({ try await Task.sleep(for: interval) })) != nil else { break }
        }
        logger.info("upkeep stopped")
    }
}

/// Tells reminders as they come due (`ChatEngine.runReminders`), until the server stops.
struct ReminderSweep: Service, CustomStringConvertible {
    var description: String { "reminders" }

    let engine: ChatEngine

    func run() async throws {
        await cancelWhenGracefulShutdown { await engine.runReminders() }
    }
}

/// Ends the connections a ban made on another node names (`ChatEngine.watchBans`),
/// until the server stops.
struct BanWatch: Service, CustomStringConvertible {
    var description: String { "bans" }

    let engine: ChatEngine

    func run() async throws {
        await cancelWhenGracefulShutdown { await engine.watchBans() }
    }
}

/// Deletes messages past their retention (`ChatEngine.runRetention`), until the server
/// stops; logs and counts each pass that deleted something.
struct RetentionSweep: Service, CustomStringConvertible {
    var description: String { "retention" }

    let engine: ChatEngine
    let metrics: ServerMetrics
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await engine.runRetention { [metrics, logger] result in
                switch result {
                case .success(let pass):
                    metrics.expired.increment(by: Int64(pass.messages))
                    logger.info(
                        "retention: deleted \(pass.messages) messages (\(pass.media) with media) in \(String(format: "%.2f", pass.seconds)) s"
                    )
                case .failure(let error):
                    logger.warning("retention failed: \(error)")
                }
            }
        }
    }
}
