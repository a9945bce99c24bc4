import ParleyCore
import ParleyEngine

extension IRCConnection {
    /// WHO #chan or WHO nick: 352 per member (H, or G when away; B for a bot; @ or + for
    /// the role). With a WHOX field list (`WHO mask %fields[,token]`),
    /// 354 with those fields instead.
    func who(_ message: IRCMessage) async throws {
        let mask = try parameter(message, 0)
        let fields = message.params.count > 1 && message.params[1].hasPrefix("%") ? WhoFields(message.params[1]) : nil
        var entries: [WhoEntry] = []
        if mask.hasPrefix("#") {
            let chat = try await channelChat(mask)
            let away = (try? await session.awayMembers(of: chat.id)) ?? [:]
            for member in try await session.members(chat: chat.id) {
                entries.append(WhoEntry(channel: mask, user: member.user, away: away[member.user.id] != nil, role: member.role))
            }
        } else if let user = try? await session.user(handle: mask) {
            let away = (try? await session.activity(of: user.id).away) != nil
            entries.append(WhoEntry(channel: "*", user: user.ref, away: away, role: nil))
        }
        for entry in entries {
            let names = gateway.people.names(of: entry.user.id)
            let username = names?.username ?? entry.user.handle
            let realname = names?.realname ?? entry.user.displayName
            let flags = (entry.away ? "G" : "H") + (entry.user.isBot ? "B" : "") + (entry.role.map(IRCView.prefixSymbol) ?? "")
            guard let fields else {
                reply(IRCNumeric.whoReply, [entry.channel, username, "parley", serverName, entry.user.handle, flags, "0 \(realname)"])
                continue
            }
            let account = IRCView.isGuest(entry.user) ? "0" : entry.user.handle
            let values: [Character: String] = [
                "t": fields.token, "c": entry.channel, "u": username, "i": "255.255.255.255", "h": "parley", "s": serverName,
                "n": entry.user.handle, "f": flags, "d": "0", "l": "0", "a": account, "o": "n/a", "r": realname,
            ]
            reply(IRCNumeric.whoSpecial, fields.letters.compactMap { values[$0] })
        }
        reply(IRCNumeric.endOfWho, [mask, "End of /WHO list"])
    }

    private struct WhoEntry {
        let channel: String
        let user: UserRef
        let away: Bool
        let role: Role?
    }

    /// A WHOX field list, `%tcuihsnfdlaor,token`: the fields asked for, in the order
    /// WHOX always answers them, and the token (up to 3 digits) echoed for `t`.
    struct WhoFields {
        static let order: [Character] = Array("tcuihsnfdlaor")
        let letters: [Character]
        let token: String

        init(_ text: String) {
            let parts = text.dropFirst().split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false)
            let asked = Set(parts.first ?? "")
            letters = Self.order.filter { asked.contains($0) }
            let token = parts.count > 1 ? String(parts[1].prefix(3)) : "0"
            self.token = token.allSatisfy(\.isNumber) && !token.isEmpty ? token : "0"
        }
    }
}
