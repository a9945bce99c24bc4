import ArgumentParser
import Foundation
import Logging
import ParleyEngine
import ParleyIRC
import ParleyServer
import Synchronization
import UnixSignals

/// What a reload reaches into.
struct ServeReloadTargets: Sendable {
    var server: ParleyServer
    var engine: ChatEngine
    var hookSender: OutgoingHookSender
    var logLevel: LiveLogLevel
    var gateways: [IRCGateway]
}

/// SIGHUP: `parley serve` reads its settings again (the `--config` file, under the same
/// command line), applies those that can change while it serves, and logs each change;
/// a change that takes a restart is logged as such and left as it was. No connection is
/// closed for it.
extension ServeCommand {
    /// Settings a reload applies: the log level, the request and IRC line rates, incoming
    /// hooks' rate, the hosts outgoing hooks may call, the configuration's bans and the
    /// TLS certificate (read again from its files at every reload, changed or not: a
    /// renewed certificate). Operators' bans and suspensions live in the database:
    /// `/ban-server` takes effect at once.
    static let reloadable: Set<String> = [
        "log-level", "rate-limit", "account-rate-limit", "irc-line-rate", "irc-account-line-rate", "hook-rate", "hook-allow",
        "hook-allow-loopback", "ban", "tls-cert", "tls-key",
    ]

    func watchReloads(_ targets: ServeReloadTargets, logger: Logger) async {
        var current = self
        for await _ in await UnixSignalsSequence(trapping: .sighup) {
            current = await reload(from: current, into: targets, logger: logger)
        }
    }

    /// Reads the settings again; returns the command the server now runs by.
    private func reload(from current: ServeCommand, into targets: ServeReloadTargets, logger: Logger) async -> ServeCommand {
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
        var applied = current
        if current.tlsCert != nil, let certificate = next.tlsCert, let key = next.tlsKey {
            Self.reloadTLS(certificate: certificate, key: key, into: targets, logger: logger)
            (applied.tlsCert, applied.tlsKey) = (certificate, key)
        }
        guard !changed.isEmpty else {
            logger.info("reload: no setting changed")
            return applied
        }
        // Serving TLS or not takes a restart; another certificate does not.
        let servesTLS = current.tlsCert != nil && next.tlsCert != nil
        let reloadable = servesTLS ? Self.reloadable : Self.reloadable.subtracting(["tls-cert", "tls-key"])
        for key in changed where reloadable.contains(key) {
            logger.notice("reload: \(key) \(before[key] ?? "~") → \(after[key] ?? "~")")
        }
        for key in changed where !reloadable.contains(key) {
            logger.warning("reload: \(key) changed to \(after[key] ?? "~") but takes a restart; still \(before[key] ?? "~")")
        }
        if changed.contains(where: { ["rate-limit", "account-rate-limit"].contains($0) }) {
            targets.server.setRates(perSocket: next.rateLimit, perAccount: next.accountRateLimit)
            (applied.rateLimit, applied.accountRateLimit) = (next.rateLimit, next.accountRateLimit)
        }
        if changed.contains(where: { ["irc-line-rate", "irc-account-line-rate", "rate-limit"].contains($0) }) {
            for gateway in targets.gateways {
                gateway.setLineRates(perConnection: next.ircLinesPerSecond, perAccount: next.ircAccountLineRate)
            }
            (applied.ircLineRate, applied.ircAccountLineRate) = (next.ircLineRate, next.ircAccountLineRate)
        }
        if changed.contains("hook-rate") {
            targets.engine.setHookRate(next.hookRate)
            applied.hookRate = next.hookRate
        }
        if changed.contains(where: { $0.hasPrefix("hook-allow") }) {
            targets.hookSender.setRules(OutboundRules(hosts: next.hookAllow, loopback: next.hookAllowLoopback))
            (applied.hookAllow, applied.hookAllowLoopback) = (next.hookAllow, next.hookAllowLoopback)
        }
        if changed.contains("ban") {
            // Checked when parsed: the connections the new bans name end, none other.
            _ = try? await targets.engine.setConfiguredBans(next.bans)
            applied.bans = next.bans
        }
        if changed.contains("log-level"), let level = Logger.Level(rawValue: next.logLevel) {
            targets.logLevel.set(level)
            applied.logLevel = next.logLevel
        }
        return applied
    }

    /// Reads the certificate and key again and serves new connections (WebSocket, HTTP,
    /// IRC over TLS) with them; open ones keep theirs. Files that do not make a context
    /// leave the old one, and say why.
    private static func reloadTLS(certificate: String, key: String, into targets: ServeReloadTargets, logger: Logger) {
        do {
            var configuration = ParleyServer.Configuration()
            try configuration.useTLS(certificateFile: certificate, keyFile: key)
            guard let tls = configuration.tls else { return }
            try targets.server.replaceTLS(tls)
            for gateway in targets.gateways { try gateway.replaceTLS(tls) }
            logger.notice("reload: TLS certificate read again from \(certificate)")
        } catch {
            logger.error("reload: the TLS certificate stays as it was: \(Parley.message(for: error))")
        }
    }

    /// Lines a second each IRC connection may send: `--irc-line-rate`, or 10 unless
    /// `--rate-limit 0` turned rates off.
    var ircLinesPerSecond: Int { ircLineRate ?? (rateLimit == 0 ? 0 : 10) }

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
