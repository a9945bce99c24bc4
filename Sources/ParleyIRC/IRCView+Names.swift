import ParleyCore

/// How users and channels are named on IRC.
extension IRCView {
    /// `nick!user@host` for a Parley user: the handle is the nick and the user name.
    static func prefix(_ user: UserRef) -> String { "\(user.handle)!\(user.handle)@parley" }

    /// A JOIN line; with IRCv3 extended-join, the account (`*` for a guest) and real name.
    static func join(_ user: UserRef, channel: String, capabilities: Set<IRCCapability>, realname: String?) -> IRCMessage {
        guard capabilities.contains(.extendedJoin) else {
            return IRCMessage(source: prefix(user), command: "JOIN", params: [channel])
        }
        let account = isGuest(user) ? "*" : user.handle
        return IRCMessage(source: prefix(user), command: "JOIN", params: [channel, account, realname ?? user.displayName])
    }

    /// A guest of `--irc-guests`, as its display name marks it.
    static func isGuest(_ user: UserRef) -> Bool { user.displayName.hasSuffix(" (guest)") }

    /// The real name IRC shows: the display name, without a guest's mark.
    static func realname(_ user: UserRef) -> String {
        isGuest(user) ? String(user.displayName.dropLast(" (guest)".count)) : user.displayName
    }

    /// NAMES' and WHO's mark for a role: `@` owner and admins, `+` voiced.
    static func prefixSymbol(_ role: Role) -> String {
        role >= .admin ? "@" : role == .voiced ? "+" : ""
    }

    static func channel(_ chat: Chat) -> String? { chat.kind == .group ? chat.handle.map { "#" + $0 } : nil }
}
