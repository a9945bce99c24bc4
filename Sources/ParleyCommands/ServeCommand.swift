public import ArgumentParser
import Foundation
import Logging
import ParleyBots
import ParleyCore
import ParleyEngine
import ParleyIRC
import ParleyLive
import ParleyServer
import ParleyStore
import ServiceLifecycle
import UnixSignals

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run a Parley server: WebSocket at /v1/ws, media at /v1/media, /healthz, /metrics.",
        discussion: "Stops gracefully on SIGINT or SIGTERM. Logs go to standard error.")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free one).") var port = 7878
    @Option(help: "Data folder (default: $XDG_DATA_HOME/parley or ~/.local/share/parley).") var data: String?
    /// `parley --data D serve` names the folder before the subcommand.
    @ParentCommand var parent: Parley
    @Option(help: "Seconds without a pong before a socket counts as gone.") var pingTimeout = 15.0
    @Option(help: "Seconds a new socket has to sign in.") var signInTimeout = 10.0
    @Option(help: "Seconds a new connection has to finish its HTTP request or WebSocket upgrade.") var handshakeTimeout = 5.0
    @Option(help: "Requests per second per socket, bursts of twice that (0: no limit).") var rateLimit = 500
    @Option(help: "Requests per second one account may make over all its sockets, bursts of twice that (default: twice --rate-limit).")
    var accountRateLimit: Int?
    @Option(help: "Sockets one user may hold open at once.") var maxSocketsPerUser = 32
    @Option(help: "Events kept per user for clients that reconnect.") var backlog = 1024
    @Option(help: "Largest image upload, in MiB.") var maxImageMb = 10
    @Option(help: "Largest video upload, in MiB.") var maxVideoMb = 200
    @Option(help: "Largest upload of any other file (a PDF, a text, an archive), in MiB.") var maxFileMb = 25
    @Option(help: "Posts a second one incoming webhook may make on a node, bursts of four times that (0: no limit).")
    var hookRate = 5
    @Option(help: "Largest body an incoming webhook takes, in KiB.") var maxHookKib = 512
    @Option(
        help: ArgumentHelp(
            "A host outgoing hooks may call: a name, *.example.com, or * for any public host (repeat for more).", valueName: "HOST"))
    var hookAllow: [String] = []
    @Flag(help: "Let outgoing hooks call this machine (localhost, 127.0.0.1, ::1).") var hookAllowLoopback = false
    @Option(
        name: .customLong("ban"),
        help: ArgumentHelp(
            "Refuse @handle, a handle pattern (spam*) or an address range (203.0.113.0/24) at every door, as /ban-server does (repeat for more).",
            valueName: "TARGET"))
    var bans: [String] = []
    @Option(
        help: ArgumentHelp(
            "Send phone sign-in codes with this program, run without a shell: {phone} and {code} are replaced.",
            valueName: "PROGRAM ARGS")) var smsCommand: String?
    @OptionGroup var identity: IdentityOptions
    @Option(
        help:
            "Failed password sign-ins to one account from one address per 15 minutes (5 times as many per address, 10 times as many per account a day; docs/server.md)."
    )
    var maxFailedSignIns = 10
    @Option(help: "Accounts one client address may register per 15 minutes (0: no limit).") var maxRegistrations = 20
    @Option(help: "Open connections at most; past it new ones are answered 503 (lowered to fit the open-file limit).")
    var maxConnections = 10_000
    @Option(help: "Events kept for resuming across all users.") var totalBacklog = 2_000_000
    @Option(help: "Hours after sending that a user may edit a message (0: any time).") var editWindow = 24.0
    @Option(help: "Hours after sending that a user may delete their own message (0: any time).") var deleteWindow = 0.0
    @Option(help: "Chats whose members are cached in memory.") var cachedChats = 50_000
    @Option(help: "Threads serving sockets (default: one fewer than the cores, at least 1).") var threads: Int?
    @Option(help: "KiB of events a socket may leave unread: past them, 10 s without reading closes it (code 4008).")
    var maxUnreadKib = 4096
    @Option(help: "Who may make an account: open (anyone), invite (with a sign-up code from an admin) or closed.")
    var registration = RegistrationMode.open
    @Option(
        name: .customLong("admin"),
        help: ArgumentHelp(
            "A server operator: makes sign-up codes, reads reports, suspends, bans, redacts (repeat for more).", valueName: "@HANDLE"))
    var admins: [String] = []
    @Option(help: "Days messages are kept, then deleted with their media (default: for good); a group may keep them less.")
    var retentionDays: Int?
    @Option(help: "Seconds between looks for messages past their time.") var retentionInterval = 60
    @Option(help: "Messages retention deletes in one transaction (it rests three times as long as each takes).")
    var retentionBatch = 50
    @Option(help: "What becomes of a deleted account's messages: keep (as from \"Deleted user\", files gone) or delete.")
    var erasedMessages = ErasedMessages.keep
    @Option(help: "Days a deleted account's handle is held back from anyone else.") var handleHoldDays = 30
    @Option(help: ArgumentHelp("Serve wss:// and https:// with this certificate chain (PEM); needs --tls-key.", valueName: "PEM"))
    var tlsCert: String?
    @Option(help: ArgumentHelp("The certificate's private key (PEM).", valueName: "PEM")) var tlsKey: String?
    @Flag(help: "fsync every commit (survives power loss, slower).") var syncFull = false
    @Option(
        help: ArgumentHelp(
            "Keep everything in PostgreSQL, shared by every node started with the same URL (password from the URL or PGPASSWORD).",
            valueName: "postgres://USER@HOST:PORT/DB")) var postgres: String?
    @Option(help: ArgumentHelp("The media folder (default: DATA/media); nodes on one PostgreSQL must share one.", valueName: "DIR"))
    var media: String?
    @Option(help: "With --postgres: seconds a node may miss heartbeats before its users are shown offline.")
    var heartbeatTimeout = 15.0
    @Option(help: ArgumentHelp("Also serve IRC clients on this port (0 picks a free one; off when not given).", valueName: "PORT"))
    var ircPort: Int?
    @Option(
        help: ArgumentHelp("Also serve IRC over TLS on this port, with --tls-cert and --tls-key (0 picks a free one).", valueName: "PORT"))
    var ircsPort: Int?
    @Flag(help: "IRC clients without credentials become guests under a nick no account holds, while connected.")
    var ircGuests = false
    @Option(help: "Lines an IRC connection may send per second, bursts of twice that (0: no limit; default 10, none with --rate-limit 0).")
    var ircLineRate: Int?
    @Option(
        help:
            "Lines one account may send per second over all its IRC connections, bursts of twice that (default: three times --irc-line-rate)."
    )
    var ircAccountLineRate: Int?
    @Option(
        help:
            "Messages of each chat played back to an IRC client without draft/chathistory when it connects: what it missed since the user was last seen (0: none)."
    )
    var ircPlayback = 50
    @Option(help: "Messages played back in all on an IRC connection (the newest are kept).")
    var ircPlaybackTotal = 400
    @Option(help: "KiB of lines an IRC client may leave unread before it is closed (sendq).")
    var ircSendqKib = 1024
    @Option(help: ArgumentHelp("How the IRC gateway names itself in lines and LINKS (default parley).", valueName: "NAME"))
    var ircServerName = "parley"
    @Option(help: ArgumentHelp("What LINKS and WHOIS say of the IRC server.", valueName: "TEXT"))
    var ircServerInfo = "Parley"
    @Option(help: ArgumentHelp("The network name IRC clients see (ISUPPORT NETWORK).", valueName: "NAME"))
    var ircNetwork = "Parley"
    @Option(help: "The shortest password accepted for a new account, a bot or a password change, in bytes.")
    var minPasswordLength = Limits.minPasswordBytes
    @Option(
        help: ArgumentHelp(
            "Connections from one address that have not signed in, at most (WebSocket, HTTP and IRC together; 0: no limit).",
            valueName: "N"))
    var maxUnsignedPerAddress = 64
    @Option(help: ArgumentHelp("Sign-ins and sign-ups one address may have under way at once (0: no limit).", valueName: "N"))
    var maxPasswordChecksPerAddress = 8
    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "A reverse proxy's address, whose X-Forwarded-For names the client of a WebSocket it passes on (repeat for several).",
            valueName: "ADDRESS"))
    var trustedProxies: [String] = []
    @Option(
        help: ArgumentHelp(
            "Read the settings from this YAML file: each flag's, named without its dashes (ping-timeout: 15); a flag given too wins.",
            valueName: "FILE"))
    var config: String?
    @Flag(help: "Check the settings (flags and --config file), print them all as they stand, and exit without serving.")
    var check = false
    @Option(help: "Log level: trace, debug, info, notice, warning, error.") var logLevel = "info"
    @Option(help: "Log as text lines, or as one JSON object per line (json).") var logFormat = LogFormat.text

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    func validate() throws {
        for (name, seconds) in [
            ("--ping-timeout", pingTimeout), ("--sign-in-timeout", signInTimeout), ("--handshake-timeout", handshakeTimeout),
        ] {
            guard (try? Limits.duration(seconds: seconds)) != nil, seconds >= 0.1 else {
                throw ValidationError("\(name) takes 0.1 seconds to 10 years")
            }
        }
        guard (1...100_000).contains(maxFailedSignIns), maxRegistrations >= 0 else {
            throw ValidationError("--max-failed-sign-ins is 1 to 100000 and --max-registrations at least 0")
        }
        if let retentionDays, !(1...Limits.maxRetentionDays).contains(retentionDays) {
            throw ValidationError("--retention-days is 1 to \(Limits.maxRetentionDays)")
        }
        guard (1...86400).contains(retentionInterval) else { throw ValidationError("--retention-interval is 1 to 86400 seconds") }
        guard (1...10_000).contains(retentionBatch) else { throw ValidationError("--retention-batch is 1 to 10000") }
        guard (0...3650).contains(handleHoldDays) else { throw ValidationError("--handle-hold-days is 0 to 3650") }
        for admin in admins {
            guard (try? Limits.userHandle(admin)) != nil else {
                throw ValidationError("--admin takes a user's @handle, not \(admin)")
            }
        }
        let loops = ParleyServer.Configuration.eventLoopRange
        if let threads, !loops.contains(threads) {
            throw ValidationError("--threads takes \(loops.lowerBound) to \(loops.upperBound)")
        }
        guard (1...3600).contains(heartbeatTimeout) else { throw ValidationError("--heartbeat-timeout takes 1 to 3600 seconds") }
        if let ircPort, !(0...65535).contains(ircPort) { throw ValidationError("--irc-port takes 0 to 65535") }
        if let ircsPort, !(0...65535).contains(ircsPort) { throw ValidationError("--ircs-port takes 0 to 65535") }
        guard ircsPort == nil || tlsCert != nil else { throw ValidationError("--ircs-port needs --tls-cert and --tls-key") }
        guard ircPort != nil || ircsPort != nil || !ircGuests else { throw ValidationError("--irc-guests needs --irc-port or --ircs-port") }
        for (name, rate) in [
            ("--irc-line-rate", ircLineRate), ("--irc-account-line-rate", ircAccountLineRate), ("--account-rate-limit", accountRateLimit),
            ("--rate-limit", rateLimit),
        ] {
            if let rate, !(0...1_000_000).contains(rate) { throw ValidationError("\(name) takes 0 to 1000000") }
        }
        guard (16...1_048_576).contains(ircSendqKib) else { throw ValidationError("--irc-sendq-kib takes 16 to 1048576") }
        guard (0...1_000_000).contains(hookRate) else { throw ValidationError("--hook-rate takes 0 to 1000000") }
        guard (1...65536).contains(maxHookKib) else { throw ValidationError("--max-hook-kib takes 1 to 65536") }
        guard (0...Limits.maxPlayback).contains(ircPlayback), (0...100_000).contains(ircPlaybackTotal) else {
            throw ValidationError("--irc-playback takes 0 to \(Limits.maxPlayback) and --irc-playback-total 0 to 100000")
        }
        // A server name and a network name are single words in every line that carries them.
        for (flag, name) in [("--irc-server-name", ircServerName), ("--irc-network", ircNetwork)] {
            let allowed = name.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-")
            }
            guard (1...63).contains(name.utf8.count), allowed else {
                throw ValidationError("\(flag) takes 1 to 63 letters, digits, dots and dashes")
            }
        }
        guard (1...200).contains(ircServerInfo.utf8.count), !ircServerInfo.unicodeScalars.contains(where: Limits.isControl) else {
            throw ValidationError("--irc-server-info takes 1 to 200 printable bytes")
        }
        guard maxUnsignedPerAddress >= 0, maxPasswordChecksPerAddress >= 0 else {
            throw ValidationError("--max-unsigned-per-address and --max-password-checks-per-address are 0 (no limit) or more")
        }
        guard (1...Limits.maxPasswordBytes).contains(minPasswordLength) else {
            throw ValidationError("--min-password-length takes 1 to \(Limits.maxPasswordBytes)")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        guard bans.count <= ServerBan.maxBans else { throw ValidationError("--ban holds \(ServerBan.maxBans) bans at most") }
        for ban in bans {
            do { _ = try ServerBan.target(ban) } catch { throw ValidationError("--ban \(ban): \(error.message)") }
        }
        if registration == .invite && admins.isEmpty {
            throw ValidationError("--registration invite needs at least one --admin @HANDLE to make sign-up codes")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level takes trace, debug, info, notice, warning or error")
        }
        guard maxConnections >= 1, totalBacklog >= 1, cachedChats >= 2, (64...1 << 22).contains(maxUnreadKib) else {
            throw ValidationError("--max-connections and --total-backlog are at least 1, --cached-chats 2, --max-unread-kib 64 to 4194304")
        }
    }

    /// The admins' handles as the engine keeps them (`validate` has checked each).
    var adminHandles: [String] { admins.compactMap { try? Limits.userHandle($0) } }

    /// Says in the log who may register, and in invite mode with no admin account yet,
    /// the code the first admin registers with.
    private func announceRegistration(engine: ChatEngine, logger: Logger) async throws {
        let handles = adminHandles
        switch registration {
        case .open: logger.info("registration: open (anyone who reaches this server can make an account; see --registration)")
        case .closed: logger.info("registration: closed (no new accounts; signed-in users may still make bot accounts)")
        case .invite: logger.info("registration: by invitation (sign-up codes from \(handles.map { "@" + $0 }.joined(separator: ", ")))")
        }
        guard let code = try await engine.firstAdminCode(), let first = handles.first else { return }
        let until = code.expiresAt.map { ", until \($0.formatted(.iso8601))" } ?? ""
        logger.notice("no admin account yet: register with /register EMAIL --handle \(first) --code \(code.code) (one use\(until))")
    }

    /// Tells the operators of names taken before today's rules refused them (read once
    /// the server runs: a PostgreSQL store answers only then).
    private static func auditNames(engine: ChatEngine, logger: Logger) async {
        guard let breaking = try? await engine.namesBreakingRules(), !breaking.isEmpty else { return }
        logger.notice(
            "\(breaking.count) accounts have names today's rules refuse (they keep them): \(breaking.prefix(20).joined(separator: "; "))")
    }

    func run() async throws {
        if check { return try checkSettings() }
        let level = LiveLogLevel(Logger.Level(rawValue: logLevel) ?? .info)
        let format = logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text: LiveLevelHandler(StreamLogHandler.standardError(label: label), level: level)
            case .json: LiveLevelHandler(JSONLogHandler(label: label, logLevel: .trace), level: level)
            }
        }
        let logger = Logger(label: "parley.server")
        ParleyServer.raiseOpenFileLimit()
        let folder = try ShellOptions.folder(data ?? parent.global.data)
        try checkMediaLimits()
        let hookSender = OutgoingHookSender(rules: OutboundRules(hosts: hookAllow, loopback: hookAllowLoopback))
        let configure = { (configuration: inout ChatEngine.Configuration) throws in
            if let smsCommand {
                configuration.codeSender = try CommandCodeSender(template: smsCommand, logger: logger)
            } else {
                configuration.codeSender = DevelopmentCodeSender { line in logger.notice("\(line)") }
            }
            configuration.identityProvider = try identity.provider()
            configuration.cachedChats = cachedChats
            configuration.signInLimits = SignInLimits(
                failuresPerAccount: maxFailedSignIns, failuresPerAddress: maxFailedSignIns * 5,
                failuresPerAccountPerDay: maxFailedSignIns * 10, registrationsPerAddress: maxRegistrations)
            configuration.mediaLimits = MediaLimits(
                maxImageBytes: Int64(maxImageMb) << 20, maxVideoBytes: Int64(maxVideoMb) << 20, maxFileBytes: Int64(maxFileMb) << 20)
            configuration.registration = registration
            configuration.admins = Set(adminHandles)
            configuration.retentionDays = retentionDays
            configuration.retentionInterval = .seconds(retentionInterval)
            configuration.retentionBatch = retentionBatch
            configuration.erasedMessages = erasedMessages
            configuration.handleHold = .seconds(handleHoldDays * 86400)
            configuration.editWindow = editWindow == 0 ? nil : try Limits.duration(seconds: editWindow * 3600)
            configuration.deleteWindow = deleteWindow == 0 ? nil : try Limits.duration(seconds: deleteWindow * 3600)
            configuration.minPasswordBytes = minPasswordLength
            configuration.maxUnsignedPerAddress = maxUnsignedPerAddress
            configuration.maxPasswordChecksPerAddress = maxPasswordChecksPerAddress
            configuration.hookRate = hookRate
            // One sender whatever the list: a reload may allow hosts where none were.
            configuration.outgoingHooks = hookSender
            configuration.outgoingHookRefusal = { hookSender.refusal(of: $0) }
        }
        let storage = try await openStorage(folder: folder, logger: logger, configure: configure)
        let engine = storage.engine
        try await engine.setConfiguredBans(bans)
        try await announceRegistration(engine: engine, logger: logger)

        var configuration = ParleyServer.Configuration(host: host, port: port)
        // `validate` has checked each with the same bound.
        configuration.pingTimeout = try Limits.duration(seconds: pingTimeout)
        configuration.signInTimeout = try Limits.duration(seconds: signInTimeout)
        configuration.handshakeTimeout = try Limits.duration(seconds: handshakeTimeout)
        configuration.requestsPerSecond = rateLimit
        configuration.requestsPerAccount = accountRateLimit
        configuration.maxSocketsPerUser = maxSocketsPerUser
        configuration.maxConnections = maxConnections
        configuration.trustedProxies = Set(trustedProxies)
        configuration.maxHookBytes = maxHookKib * 1024
        configuration.maxUnwrittenBytes = maxUnreadKib * 1024
        configuration.eventLoops = eventLoops
        if let tlsCert, let tlsKey {
            do {
                try configuration.useTLS(certificateFile: tlsCert, keyFile: tlsKey)
            } catch {
                storage.abandon()
                throw error
            }
        }
        let scheme = configuration.socketScheme
        configuration.databasePath = storage.databasePath
        let server = ParleyServer(engine: engine, configuration: configuration, logger: logger)
        storage.observeCommits { duration, messages in server.recordCommit(duration: duration, messages: messages) }
        let host = host
        let announce = storage.announce
        var gateways: [IRCGateway] = []
        var ircURL = ""
        if ircPort != nil || ircsPort != nil {
            var irc = IRCGateway.Configuration(host: host, port: ircPort)
            if let ircsPort, let tls = configuration.tls { irc.tls = (ircsPort, tls) }
            irc.pingTimeout = configuration.pingTimeout
            irc.signInTimeout = configuration.signInTimeout
            irc.maxConnections = configuration.maxConnections
            irc.guests = ircGuests
            irc.playback = (ircPlayback, ircPlaybackTotal)
            irc.sendQueueBytes = ircSendqKib << 10
            irc.serverName = ircServerName
            irc.serverInfo = ircServerInfo
            irc.network = ircNetwork
            irc.linesPerSecond = ircLinesPerSecond
            irc.accountLinesPerSecond = ircAccountLineRate
            let gateway = IRCGateway(
                engine: engine, configuration: irc, eventLoopGroup: ParleyServer.eventLoopGroup(threads: configuration.eventLoops),
                taskExecutor: { ParleyServer.taskExecutor(on: $0) }, logger: logger)
            do {
                let ports = try await gateway.bind()
                if let plain = ports.plain { ircURL += " irc://\(host):\(plain)" }
                if let tls = ports.tls { ircURL += " ircs://\(host):\(tls)" }
            } catch {
                storage.abandon()
                throw ParleyServer.startFailure(error, host: host, port: ircPort ?? ircsPort ?? 0) ?? error
            }
            gateways.append(gateway)
        }
        let app = server.application { [ircURL, gateways] port in
            // The first line on stdout says where to connect (tests and scripts read it).
            let url = "\(scheme)://\(host):\(port)/v1/ws"
            for gateway in gateways { gateway.serveMedia(at: "\(scheme == "wss" ? "https" : "http")://\(host):\(port)") }
            announce(url)
            let line = "parley serve: listening on \(url)\(ircURL) data \(folder.path)\n"
            _ = line.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
            Task { await Self.auditNames(engine: engine, logger: logger) }
        }
        // One group, stopped by SIGTERM or SIGINT: the server (sockets, then the upkeep)
        // stops first, the storage last.
        let group = ServiceGroup(
            configuration: .init(
                services: storage.services + gateways + [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        let reloads = Task {
            await watchReloads(
                ServeReloadTargets(server: server, engine: engine, hookSender: hookSender, logLevel: level, gateways: gateways),
                logger: logger)
        }
        defer { reloads.cancel() }
        do {
            try await group.run()
        } catch {
            throw ParleyServer.startFailure(error, host: host, port: port) ?? error
        }
        // PARLEY_STAGES=FILE: where each send's time went (scripts/send-stages.py).
        StageLog.shared?.write()
        logger.info("stopped")
    }
}

extension RegistrationMode: ExpressibleByArgument {}
extension ErasedMessages: ExpressibleByArgument {}

extension ServeCommand {
    /// The server's event loops: `--threads`, or the server's default.
    var eventLoops: Int { threads ?? ParleyServer.Configuration.defaultEventLoops }
}
