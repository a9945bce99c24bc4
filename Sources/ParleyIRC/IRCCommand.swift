import ParleyCore

/// One command the gateway understands: whether it needs a signed-in connection, and
/// what it does.
struct IRCCommand: Sendable {
    var needsSignIn = true
    let run: @Sendable (isolated IRCConnection, IRCMessage) async throws -> Void
}

extension IRCConnection {
    /// Every command, by name; anything else answers 421.
    static let commands: [String: IRCCommand] = [
        "CAP": IRCCommand(needsSignIn: false) { try await $0.cap($1) },
        "AUTHENTICATE": IRCCommand(needsSignIn: false) { try await $0.authenticate($1) },
        "PASS": IRCCommand(needsSignIn: false) { $0.pass($1) },
        "NICK": IRCCommand(needsSignIn: false) { try await $0.nickCommand($1) },
        "USER": IRCCommand(needsSignIn: false) { try await $0.userCommand($1) },
        "PING": IRCCommand(needsSignIn: false) { await $0.ping($1) },
        "PONG": IRCCommand(needsSignIn: false) { _, _ in },
        "QUIT": IRCCommand(needsSignIn: false) { await $0.quit($1) },
        "JOIN": IRCCommand { try await $0.join($1) },
        "PART": IRCCommand { try await $0.part($1) },
        "PRIVMSG": IRCCommand { try await $0.privmsg($1, notice: false) },
        "NOTICE": IRCCommand { try await $0.privmsg($1, notice: true) },
        "TOPIC": IRCCommand { try await $0.topic($1) },
        "NAMES": IRCCommand { try await $0.names($1) },
        "WHO": IRCCommand { try await $0.who($1) },
        "WHOIS": IRCCommand { try await $0.whois($1) },
        "KICK": IRCCommand { try await $0.kick($1) },
        "INVITE": IRCCommand { try await $0.invite($1) },
        "MODE": IRCCommand { try await $0.mode($1) },
        "LIST": IRCCommand { try await $0.list($1) },
        "AWAY": IRCCommand { try await $0.away($1) },
        "ISON": IRCCommand { try await $0.ison($1) },
        "USERHOST": IRCCommand { try await $0.userhost($1) },
        "WHOWAS": IRCCommand { try await $0.whowas($1) },
        "CHATHISTORY": IRCCommand { try await $0.chathistory($1) },
        "TAGMSG": IRCCommand { try await $0.tagmsg($1) },
        "LUSERS": IRCCommand { connection, _ in connection.lusers() },
        "INFO": IRCCommand { connection, message in connection.info(message) },
        "KILL": IRCCommand { try await $0.kill($1) },
        "WALLOPS": IRCCommand { try await $0.wallops($1) },
        "KLINE": IRCCommand { try await $0.kline($1) },
        "UNKLINE": IRCCommand { try await $0.unkline($1) },
        "UBAN": IRCCommand { try await $0.uban($1) },
        "LINKS": IRCCommand { connection, _ in connection.links() },
        "OPER": IRCCommand { try await $0.oper($1) },
        "MARKREAD": IRCCommand { try await $0.markRead($1) },
        "MONITOR": IRCCommand { try await $0.monitor($1) },
        "REDACT": IRCCommand { try await $0.redact($1) },
        "EDIT": IRCCommand { try await $0.edit($1) },
        "BATCH": IRCCommand { try await $0.batch($1) },
        "SETNAME": IRCCommand { try await $0.setname($1) },
        "NICKSERV": IRCCommand { await $0.nickServ(IRCConnection.words($1.params.joined(separator: " "))) },
        "NS": IRCCommand { await $0.nickServ(IRCConnection.words($1.params.joined(separator: " "))) },
    ]

    /// The most channels or nicks one JOIN, PART, PRIVMSG, NOTICE, NAMES or KICK names
    /// (TARGMAX).
    static let maxTargets = 10

    /// The comma-separated targets of the parameter at `index`, at most `maxTargets`
    /// (407 ERR_TOOMANYTARGETS past that).
    func targets(_ message: IRCMessage, _ index: Int) throws(IRCRefusal) -> [String] {
        let targets = try parameter(message, index).split(separator: ",").map(String.init)
        guard targets.count <= Self.maxTargets else {
            reply(IRCNumeric.tooManyTargets, [message.params[index], "Too many targets: at most \(Self.maxTargets)"])
            throw IRCRefusal()
        }
        // A NUL or other control character names no channel or nick (and must not be
        // lost on the way, leaving the name it was appended to).
        if let bad = targets.first(where: { $0.unicodeScalars.contains(where: Limits.isControl) }) {
            let numeric = bad.hasPrefix("#") ? IRCNumeric.noSuchChannel : IRCNumeric.noSuchNick
            reply(numeric, [bad.filter { !$0.unicodeScalars.contains(where: Limits.isControl) }, "A name has no control characters"])
            throw IRCRefusal()
        }
        return targets
    }

    /// The parameter at `index`, or 461 ERR_NEEDMOREPARAMS.
    func parameter(_ message: IRCMessage, _ index: Int) throws(IRCRefusal) -> String {
        guard index < message.params.count, !message.params[index].isEmpty else {
            reply(IRCNumeric.needMoreParams, [message.command, "Not enough parameters"])
            throw IRCRefusal()
        }
        return message.params[index]
    }
}

/// A command already answered with its numeric: nothing more to say.
struct IRCRefusal: Error {}
