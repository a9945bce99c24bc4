import Foundation
import Logging
import ParleyCore
import ParleyEngine

extension IRCConnection {
    func cap(_ message: IRCMessage) async throws {
        let sub = try parameter(message, 0).uppercased()
        switch sub {
        case "LS":
            if !isRegistered { negotiating = true }
            // Values (sasl=PLAIN) only for clients that speak CAP 302.
            let version = message.params.count > 1 ? Int(message.params[1]) ?? 0 : 0
            let offered = IRCCapability.allCases.map { version >= 302 ? $0.offered : $0.rawValue }
            emit(IRCMessage(source: serverName, command: "CAP", params: [nick, "LS", offered.joined(separator: " ")]))
        case "LIST":
            emit(
                IRCMessage(
                    source: serverName, command: "CAP",
                    params: [nick, "LIST", view.capabilities.sorted().map(\.rawValue).joined(separator: " ")]))
        case "REQ":
            if !isRegistered { negotiating = true }
            let asked = (message.params.count > 1 ? message.params[1] : "").split(separator: " ").map(String.init)
            // Each named one is offered, or none of them is granted.
            let named = asked.map {
                (off: $0.hasPrefix("-"), capability: IRCCapability(rawValue: $0.hasPrefix("-") ? String($0.dropFirst()) : $0))
            }
            guard !asked.isEmpty, named.allSatisfy({ $0.capability != nil }) else {
                emit(IRCMessage(source: serverName, command: "CAP", params: [nick, "NAK", asked.joined(separator: " ")]))
                return
            }
            view.enable(named.filter { !$0.off }.compactMap(\.capability))
            view.disable(named.filter(\.off).compactMap(\.capability))
            emit(IRCMessage(source: serverName, command: "CAP", params: [nick, "ACK", asked.joined(separator: " ")]))
        case "END":
            negotiating = false
            try await completeRegistration()
        default:
            reply(IRCNumeric.invalidCapCommand, [sub, "Invalid CAP command"])
        }
    }

    func authenticate(_ message: IRCMessage) async throws {
        let argument = try parameter(message, 0)
        // A connection keeps the identity it registered with (a guest's nick is not an
        // account's handle): 462, which clients read as "no SASL after registration".
        if isRegistered {
            reply(IRCNumeric.alreadyRegistered, ["You may not reregister: sign in with SASL before CAP END"])
            return
        }
        if argument == "*" {
            saslMechanism = nil
            saslPayload = ""
            reply(IRCNumeric.saslAborted, ["SASL authentication aborted"])
            return
        }
        guard let mechanism = saslMechanism else {
            guard argument.uppercased() == "PLAIN" else {
                reply(IRCNumeric.saslMechs, ["PLAIN", "are available SASL mechanisms"])
                reply(IRCNumeric.saslFail, ["SASL authentication failed"])
                return
            }
            saslMechanism = "PLAIN"
            emit(IRCMessage(command: "AUTHENTICATE", params: ["+"]))
            return
        }
        // The payload comes in lines of 400 bytes; a shorter one (or `+` after a full
        // one) ends it.
        guard argument.utf8.count <= 400 else {
            saslMechanism = nil
            saslPayload = ""
            reply(IRCNumeric.saslTooLong, ["SASL message too long: 400 bytes a line"])
            return
        }
        if argument != "+" { saslPayload += argument }
        guard saslPayload.utf8.count <= Self.maxSASLPayload else {
            saslMechanism = nil
            saslPayload = ""
            reply(IRCNumeric.saslFail, ["SASL authentication failed: the credentials are too long"])
            return
        }
        if argument.utf8.count == 400 { return }
        let payload = saslPayload
        saslMechanism = nil
        saslPayload = ""
        guard mechanism == "PLAIN", let data = Data(base64Encoded: payload),
            case let parts = data.split(separator: 0, omittingEmptySubsequences: false), parts.count == 3
        else {
            reply(IRCNumeric.saslFail, ["SASL authentication failed"])
            return
        }
        let authzid = String(decoding: parts[0], as: UTF8.self)
        let login = String(decoding: parts[1], as: UTF8.self)
        let password = String(decoding: parts[2], as: UTF8.self)
        // Signing in as someone else (an authorization identity) is not something Parley has.
        guard authzid.isEmpty || authzid.caseInsensitiveCompare(login) == .orderedSame else {
            reply(IRCNumeric.saslFail, ["SASL authentication failed: cannot act as another user"])
            return
        }
        do {
            let signedIn = try await session.signIn(login: Self.login(login), password: password)
            adopt(signedIn.user, how: "sasl")
            reply(
                IRCNumeric.loggedIn, ["\(nick)!\(nick)@parley", signedIn.user.handle, "You are now logged in as \(signedIn.user.handle)"])
            reply(IRCNumeric.saslSuccess, ["SASL authentication successful"])
        } catch {
            let error = ParleyError(error)
            log("sign_in refused: \(error.code)", ["how": "sasl", "code": "\(error.code)"])
            reply(IRCNumeric.saslFail, ["SASL authentication failed: \(error.code)"])
        }
    }

    /// The connection is signed in as `user` (by SASL, PASS, or as a guest): from now on
    /// the view speaks for them, playback counts from here, and the log says so.
    func adopt(_ user: User, how: String) {
        view.signedIn(as: user.ref)
        signedInAt = Date()
        log("\(how == "guest" ? "guest" : "signed in") @\(user.handle)", ["how": "\(how)"])
    }

    /// The gateway's own name (`--irc-server-name`) is no nick: it would pass for the
    /// server in every line.
    func isServerName(_ nick: String) -> Bool {
        nick.lowercased() == serverName.lowercased()
    }

    /// The longest SASL payload, in base64: a login and a password of the longest kind.
    static let maxSASLPayload = 4 * ((Limits.maxPasswordBytes + 2 * 256 + 2) / 3 + 1)

    /// An email address signs in as it is; anything else is a handle.
    static func login(_ given: String) -> String {
        given.contains("@") && !given.hasPrefix("@") ? given : "@" + given
    }

    func pass(_ message: IRCMessage) {
        guard !isRegistered else {
            reply(IRCNumeric.alreadyRegistered, ["You may not reregister"])
            return
        }
        password = message.params.first
    }

    func nickCommand(_ message: IRCMessage) async throws {
        guard let wanted = message.params.first, !wanted.isEmpty else {
            reply(IRCNumeric.noNicknameGiven, ["No nickname given"])
            return
        }
        if isRegistered {
            guard wanted != nick, let me = view.me else { return }
            guard !isServerName(wanted) else {
                reply(IRCNumeric.erroneousNickname, [wanted, "That is the server's name"])
                return
            }
            do {
                // A guest may change nick; an account's nick is its handle.
                let renamed = try await session.renameGuest(to: wanted)
                view.signedIn(as: renamed.ref)
                emit(IRCMessage(source: IRCView.prefix(me), command: "NICK", params: [renamed.handle]))
            } catch let error as ParleyError where error.code == .handleTaken {
                reply(IRCNumeric.nicknameInUse, [wanted, "Nickname is already in use"])
            } catch let error as ParleyError where error.code == .invalidHandle {
                reply(IRCNumeric.erroneousNickname, [wanted, "A nick is 2-32 letters, digits, '-', '_' or '.'"])
            } catch {
                reply(IRCNumeric.erroneousNickname, [wanted, "Your nick is your Parley handle, @\(nick)"])
            }
            return
        }
        guard (try? Limits.userHandle(wanted)) != nil else {
            reply(IRCNumeric.erroneousNickname, [wanted, "A nick is 2-32 letters, digits, '-', '_' or '.'"])
            return
        }
        requestedNick = wanted
        try await completeRegistration()
    }

    func userCommand(_ message: IRCMessage) async throws {
        guard !isRegistered else {
            reply(IRCNumeric.alreadyRegistered, ["You may not reregister"])
            return
        }
        guard message.params.count >= 4 else {
            reply(IRCNumeric.needMoreParams, ["USER", "Not enough parameters"])
            return
        }
        userLine = (message.params[0], message.params[3])
        try await completeRegistration()
    }

    /// Once NICK and USER are in and CAP negotiation is over: sign in with PASS if
    /// SASL did not, then the welcome burst and the user's groups as channels.
    func completeRegistration() async throws {
        guard !isRegistered, !negotiating, let requestedNick, userLine != nil else { return }
        if view.me == nil, password == nil, gateway.configuration.guests {
            guard !isServerName(requestedNick) else {
                self.requestedNick = nil
                reply(IRCNumeric.erroneousNickname, [requestedNick, "That is the server's name"])
                return
            }
            do {
                let signedIn = try await session.signInAsGuest(nick: requestedNick)
                adopt(signedIn.user, how: "guest")
            } catch {
                let error = ParleyError(error)
                log("guest refused: \(error.code)", ["how": "guest", "code": "\(error.code)"])
                self.requestedNick = nil  // not taken: numerics address the client as "*"
                if error.code == .handleTaken {
                    reply(IRCNumeric.nicknameInUse, [requestedNick, "Nickname is already in use; sign in to use it"])
                } else {
                    reply(IRCNumeric.erroneousNickname, [requestedNick, "\(error.code): \(error.message)"])
                }
                return
            }
        }
        if view.me == nil {
            guard let password else {
                reply(IRCNumeric.passwdMismatch, ["Sign in with SASL PLAIN, or PASS handle:password"])
                emit(IRCMessage(command: "ERROR", params: ["Closing link: no credentials"]))
                closeOutput()
                return
            }
            var login = requestedNick
            var secret = password
            if let colon = password.firstIndex(of: ":") {
                login = String(password[..<colon])
                secret = String(password[password.index(after: colon)...])
            }
            do {
                let signedIn = try await session.signIn(login: Self.login(login), password: secret)
                adopt(signedIn.user, how: "pass")
            } catch {
                let error = ParleyError(error)
                log("sign_in refused: \(error.code)", ["how": "pass", "code": "\(error.code)"])
                reply(IRCNumeric.passwdMismatch, ["Password incorrect (\(error.code))"])
                emit(IRCMessage(command: "ERROR", params: ["Closing link: \(error.message)"]))
                closeOutput()
                return
            }
        }
        guard let me = view.me else { return }
        isRegistered = true
        place?.release()
        gateway.people.arrived(me.id, username: userLine?.username ?? me.handle, realname: userLine?.realname ?? me.displayName)
        if me.handle != requestedNick {
            emit(IRCMessage(source: "\(requestedNick)!\(requestedNick)@parley", command: "NICK", params: [me.handle]))
        }
        let configuration = gateway.configuration
        reply(IRCNumeric.welcome, ["Welcome to the \(configuration.network) IRC gateway, \(me.handle)"])
        reply(IRCNumeric.yourHost, ["Your host is \(serverName), running Parley"])
        reply(IRCNumeric.created, ["This server is a Parley server"])
        reply(IRCNumeric.myInfo, [serverName, "parley", "Biow", "biklmnost", "bklov"])
        reply(
            IRCNumeric.isupport,
            [
                "CHANTYPES=#", "PREFIX=(ov)@+", "NICKLEN=32", "CHANNELLEN=33", "TOPICLEN=300", "CASEMAPPING=ascii",
                "CHANMODES=b,k,l,imnst", "MODES=6", "CHANLIMIT=#:", "KEYLEN=32", "are supported by this server",
            ])
        // A second line: one holds at most 13 tokens.
        reply(
            IRCNumeric.isupport,
            [
                "CHATHISTORY=\(Self.maxHistoryPage)", "MSGREFTYPES=msgid", "MONITOR=\(Limits.maxPresenceWatches)",
                "TARGMAX="
                    + ["JOIN", "PART", "PRIVMSG", "NOTICE", "NAMES", "KICK"].map { "\($0):\(Self.maxTargets)" }.joined(separator: ","),
                "NETWORK=\(configuration.network)", "BOT=B", "WHOX", "are supported by this server",
            ])
        lusers()
        reply(IRCNumeric.noMotd, ["MOTD File is missing"])
        for group in try await session.groups() {
            try await announceJoin(group)
        }
        await playBack(before: signedInAt)
        await session.tellMissedReminders()
    }

    /// PING: answered once every line that reached this node before it, from any
    /// connection, has been handled and its events handed to this node's connections,
    /// so the PONG means all of that has arrived (the suite and bots rely on it).
    func ping(_ message: IRCMessage) async {
        await gateway.engine.arrivals.earlierFinished(ticket)
        emit(IRCMessage(source: serverName, command: "PONG", params: [serverName, message.params.first ?? serverName]))
    }

    /// QUIT [reason]: the user goes offline (if this was their last connection) with
    /// the reason as their contacts' QUIT line, and a guest's nick is free, before the
    /// connection closes.
    func quit(_ message: IRCMessage) async {
        log("connection closed: quit")
        endLogged = true
        recordDeparture()
        await session.end(reason: message.params.first)
        emit(IRCMessage(command: "ERROR", params: ["Closing link: \(message.params.first ?? "quit")"]))
        closeOutput()
    }
}
