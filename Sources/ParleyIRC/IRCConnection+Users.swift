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
        reply(IRCNumeric.whoisUser, [user.handle, user.handle, "parley", "*", user.displayName])
        reply(IRCNumeric.whoisServer, [user.handle, serverName, "Parley"])
        reply(IRCNumeric.whoisAccount, [user.handle, user.handle, "is logged in as"])
        if let activity = try? await session.activity(of: user.id), let away = activity.away {
            reply(IRCNumeric.away, [user.handle, away])
        }
        reply(IRCNumeric.endOfWhois, [user.handle, "End of /WHOIS list"])
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
