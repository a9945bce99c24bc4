import ParleyCore
import ParleyEngine

extension IRCConnection {
    func whois(_ message: IRCMessage) async throws {
        let target = try parameter(message, message.params.count > 1 ? 1 : 0)
        guard let user = try? await session.user(handle: target) else {
            reply(IRCNumeric.noSuchNick, [target, "No such nick"])
            reply(IRCNumeric.endOfWhois, [target, "End of /WHOIS list"])
            return
        }
        // Someone signed in through this gateway is shown with what their USER line said.
        let names = gateway.people.names(of: user.id)
        reply(IRCNumeric.whoisUser, [user.handle, names?.username ?? user.handle, "parley", "*", names?.realname ?? user.displayName])
        reply(IRCNumeric.whoisServer, [user.handle, serverName, gateway.configuration.serverInfo])
        if !IRCView.isGuest(user.ref) { reply(IRCNumeric.whoisAccount, [user.handle, user.handle, "is logged in as"]) }
        if user.isBot { reply(IRCNumeric.whoisBot, [user.handle, "is a bot on \(gateway.configuration.network)"]) }
        if let activity = try? await session.activity(of: user.id), let away = activity.away {
            reply(IRCNumeric.away, [user.handle, away])
        }
        reply(IRCNumeric.endOfWhois, [user.handle, "End of /WHOIS list"])
    }

    /// SETNAME :real name (IRCv3 setname): the user's display name, which every client
    /// shows; IRC clients with the capability hear of it as SETNAME.
    func setname(_ message: IRCMessage) async throws {
        let name = try parameter(message, 0)
        let updated: User
        do {
            updated = try await session.updateProfile(displayName: name)
        } catch let error as ParleyError where error.code == .invalidName {
            fail("SETNAME", "INVALID_REALNAME", ["\(error.code): \(error.message)"])
            return
        }
        view.signedIn(as: updated.ref)
        let realname = IRCView.realname(updated.ref)
        gateway.people.renamed(updated.id, realname: realname)
        userLine?.realname = realname
        if view.capabilities.contains(.setname) {
            emit(IRCMessage(source: IRCView.prefix(updated.ref), command: "SETNAME", params: [realname]))
        }
    }

    func away(_ message: IRCMessage) async throws {
        if let text = message.params.first, !text.isEmpty {
            try await session.setAway(text)
            reply(IRCNumeric.nowAway, ["You have been marked as being away"])
        } else {
            try await session.back()
            reply(IRCNumeric.unaway, ["You are no longer marked as being away"])
        }
    }

    /// ISON nick…: those online now.
    func ison(_ message: IRCMessage) async throws {
        var online: [String] = []
        for nick in message.params.flatMap({ $0.split(separator: " ").map(String.init) }).prefix(50) {
            guard let user = try? await session.user(handle: nick), let activity = try? await session.activity(of: user.id),
                activity.online
            else { continue }
            online.append(user.handle)
        }
        reply(IRCNumeric.ison, [online.joined(separator: " ")])
    }

    func userhost(_ message: IRCMessage) async throws {
        var found: [String] = []
        for nick in message.params.prefix(5) {
            guard let user = try? await session.user(handle: nick) else { continue }
            found.append("\(user.handle)=+\(user.handle)@parley")
        }
        reply(IRCNumeric.userhost, [found.joined(separator: " ")])
    }
}

extension IRCConnection {
    /// WHOWAS nick [count]: this node's recent departures of the nick, newest first;
    /// else, for a Parley user, when they were last seen.
    func whowas(_ message: IRCMessage) async throws {
        let nick = try parameter(message, 0)
        let asked = message.params.count > 1 ? Int(message.params[1]) ?? 0 : 0
        let limit = asked > 0 ? min(asked, IRCPeople.kept) : IRCPeople.kept
        let departures = gateway.people.departures(of: nick, limit: limit)
        for departure in departures {
            reply(IRCNumeric.whowasUser, [departure.nick, departure.username, "parley", "*", departure.realname])
        }
        if departures.isEmpty {
            if let user = try? await session.user(handle: nick), let seen = try? await session.activity(of: user.id).lastSeen {
                reply(IRCNumeric.whowasUser, [user.handle, user.handle, "parley", "*", user.displayName])
                reply(IRCNumeric.whoisServer, [user.handle, serverName, "last seen \(IRCView.timestamp(seen))"])
            } else {
                reply(IRCNumeric.wasNoSuchNick, [nick, "There was no such nickname"])
            }
        }
        reply(IRCNumeric.endOfWhowas, [nick, "End of WHOWAS"])
    }

    /// LUSERS: this node's IRC connections (one server: each node answers for its own).
    func lusers() {
        let (signedIn, most) = gateway.people.counts
        reply(IRCNumeric.luserClient, ["There are \(signedIn) users and 0 invisible on 1 servers"])
        reply(IRCNumeric.luserOp, ["0", "operator(s) online"])
        reply(IRCNumeric.luserMe, ["I have \(signedIn) clients and 0 servers"])
        reply(IRCNumeric.localUsers, [String(signedIn), String(most), "Current local users \(signedIn), max \(most)"])
        reply(IRCNumeric.globalUsers, [String(signedIn), String(most), "Current global users \(signedIn), max \(most)"])
    }

    /// INFO [server]: this server's; another is not one there is.
    func info(_ message: IRCMessage) {
        if let target = message.params.first, !target.isEmpty, target.lowercased() != serverName.lowercased() {
            reply(IRCNumeric.noSuchServer, [target, "No such server"])
            return
        }
        reply(IRCNumeric.info, ["Parley: group and direct chat from the terminal, with an IRC gateway"])
        reply(IRCNumeric.info, ["Groups are channels and handles are nicks; see docs/irc.md"])
        reply(IRCNumeric.endOfInfo, ["End of INFO list"])
    }

    /// OPER NAME PASSWORD: the login and password of one of the server's admins
    /// (`parley serve --admin`) make this connection an operator (+o), whoever it is
    /// signed in as. Failures count against the same limits as a sign-in.
    func oper(_ message: IRCMessage) async throws {
        let login = try parameter(message, 0)
        let password = try parameter(message, 1)
        do {
            _ = try await session.authenticateServerAdmin(login: login, password: password)
        } catch let error as ParleyError where error.code == .badCredentials {
            reply(IRCNumeric.passwdMismatch, ["Password incorrect"])
            return
        } catch let error as ParleyError where error.code == .forbidden {
            reply(IRCNumeric.noOperHost, ["No O-lines for your host: \(error.message)"])
            return
        }
        userModes.insert("o")
        view.wantsWallops(true)
        reply(IRCNumeric.youreOper, ["You are now an IRC operator"])
        if let me = view.me { emit(IRCMessage(source: IRCView.prefix(me), command: "MODE", params: [nick, "+o"])) }
    }

    /// MODE on a nick: only one's own; +w and -w are kept (WALLOPS is not relayed), +o
    /// comes from OPER alone, -o drops it; +B (IRCv3 bot-mode) marks a guest as a bot
    /// for good, and a bot account always has it.
    func userMode(_ message: IRCMessage) async {
        guard message.params[0].lowercased() == nick.lowercased() else {
            reply(IRCNumeric.usersDontMatch, ["Can't change mode for other users"])
            return
        }
        guard message.params.count > 1 else {
            reply(IRCNumeric.umodeIs, ["+" + String(currentUserModes.sorted())])
            return
        }
        var adding = true
        var changed = ""
        var unknown = false
        for letter in message.params[1] {
            switch letter {
            case "+": adding = true
            case "-": adding = false
            case "i": continue
            case "w" where adding:
                if userModes.insert("w").inserted { changed += "+w" }
                view.wantsWallops(true)
            case "w", "o":
                // +o comes from OPER alone; dropping it gives up the operator's rights.
                if !adding, userModes.remove(letter) != nil { changed += "-\(letter)" }
                if letter == "o" { session.dropOperator() }
                view.wantsWallops(userModes.contains("w") || userModes.contains("o"))
            case "B" where adding:
                guard view.me?.isBot != true else { continue }
                do {
                    let bot = try await session.declareBot()
                    view.signedIn(as: bot.ref)
                    changed += "+B"
                } catch {
                    let error = ParleyError(error)
                    emit(IRCMessage(source: serverName, command: "NOTICE", params: [nick, "\(error.code): \(error.message)"]))
                }
            case "B": continue  // a bot stays one
            default: unknown = true
            }
        }
        if unknown { reply(IRCNumeric.umodeUnknownFlag, ["Unknown MODE flag"]) }
        if !changed.isEmpty, let me = view.me {
            emit(IRCMessage(source: IRCView.prefix(me), command: "MODE", params: [nick, changed]))
        }
    }

    /// The user's modes as IRC shows them: +B for a bot besides those kept here.
    var currentUserModes: Set<Character> { view.me?.isBot == true ? userModes.union(["B"]) : userModes }

    /// LINKS: one server, as far as IRC clients can tell (nodes share one database, not links).
    func links() {
        reply(IRCNumeric.links, [serverName, serverName, "0 \(gateway.configuration.serverInfo)"])
        reply(IRCNumeric.endOfLinks, ["*", "End of LINKS list"])
    }
}
