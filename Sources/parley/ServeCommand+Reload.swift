import ArgumentParser
import Foundation
import Logging
import ParleyEngine
import ParleyServer
import Synchronization
import UnixSignals

/// What a reload reaches into.
struct ServeReloadTargets: Sendable {
    var server: ParleyServer
    var engine: ChatEngine
    var hookSender: OutgoingHookSender
    var logLevel: LiveLogLevel
}

/// SIGHUP: `parley serve` reads its settings again (the `--config` file, under the same
/// command line), applies those that can change while it serves, and logs each change;
/// a change that takes a restart is logged as such and left as it was. No connection is
/// closed for it.
extension ServeCommand {
    /// Settings a reload applies: the log level, the request rates, incoming hooks' rate
    /// and the hosts outgoing hooks may call. (Bans and suspensions live in the database:
    /// `/ban-server` takes effect at once, with no reload.)
    static let reloadable: Set<String> = [
        "log-level", "rate-limit", "account-rate-limit", "hook-rate", "hook-allow", "hook-allow-loopback",
    ]

    func watchReloads(_ targets: ServeReloadTargets, logger: Logger) async {
        var current = self
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            current = reload(from: current, into: targets, logger: logger)
        }
    }

    /// Reads the settings again; returns the command the server now runs by.
    private func reload(from current: ServeCommand, into targets: ServeReloadTargets, logger: Logger) -> ServeCommand {
        let next: ServeCommand
        do {
            let arguments = try ServeConfigFile.expand(Array(CommandLine.arguments.dropFirst()))
            guard let parsed = try Parley.parseAsRoot(arguments) as? ServeCommand else { return current }
            next = parsed
        } catch {
            logger.error("reload refused, the settings stay as they were: \(Parley.message(for: error))")
            return current
        }
        let before = Self.settingLines(current)
        let after = Self.settingLines(next)
        let changed = after.keys.filter { before[$0] != after[$0] }.sorted()
        guard !changed.isEmpty else {
            logger.info("reload: no setting changed")
            return current
        }
        var applied = current
        for key in changed where Self.reloadable.contains(key) {
            logger.notice("reload: \(key) \(before[key] ?? "~") → \(after[key] ?? "~")")
        }
        for key in changed where !Self.reloadable.contains(key) {
            logger.warning("reload: \(key) changed to \(after[key] ?? "~") but takes a restart; still \(before[key] ?? "~")")
        }
        if changed.contains(where: { ["rate-limit", "account-rate-limit"].contains($0) }) {
            targets.server.setRates(perSocket: next.rateLimit, perAccount: next.accountRateLimit)
            (applied.rateLimit, applied.accountRateLimit) = (next.rateLimit, next.accountRateLimit)
        }
        if changed.contains("hook-rate") {
            targets.engine.setHookRate(next.hookRate)
            applied.hookRate = next.hookRate
        }
        if changed.contains(where: { $0.hasPrefix("hook-allow") }) {
            targets.hookSender.setRules(OutboundRules(hosts: next.hookAllow, loopback: next.hookAllowLoopback))
            (applied.hookAllow, applied.hookAllowLoopback) = (next.hookAllow, next.hookAllowLoopback)
        }
        if changed.contains("log-level"), let level = Logger.Level(rawValue: next.logLevel) {
            targets.logLevel.set(level)
            applied.logLevel = next.logLevel
        }
        return applied
    }

    /// `key → value` of every setting, as `--check` prints them.
    private static func settingLines(_ command: ServeCommand) -> [String: String] {
        var lines: [String: String] = [:]
        for line in ServeConfigFile.effective(command).split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { lines[String(parts[0])] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return lines
    }
}

/// The server's log level, which a reload may change.
final class LiveLogLevel: Sendable {
    private let level: Mutex<Logger.Level>
    init(_ level: Logger.Level) { self.level = Mutex(level) }
    var current: Logger.Level { level.withLock { $0 } }
    func set(_ new: Logger.Level) { level.withLock { $0 = new } }
}

/// A log handler whose level is the server's now, whatever its loggers were made with.
struct LiveLevelHandler<Inner: LogHandler>: LogHandler {
    var inner: Inner
    let level: LiveLogLevel

    init(_ inner: Inner, level: LiveLogLevel) {
        var inner = inner
        inner.logLevel = .trace
        self.inner = inner
        self.level = level
    }

    var logLevel: Logger.Level {
        get { level.current }
        // Set by the server alone (`LiveLogLevel`): a logger's own setting is ignored.
        set {}
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        inner.log(event: event)
    }
}
