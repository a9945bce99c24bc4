/// The commands by what they are for, as `/help` lists them: every command of
/// `CommandTable.all` is in exactly one group (a test checks it).
enum CommandGroups {
    struct Group: Sendable {
        let name: String
        let summary: String
        let commands: [String]
    }

    static let all: [Group] = [
        Group(
            name: "chatting", summary: "talk, answer, change what you said, read back",
            commands: [
                "send", "msg", "query", "switch", "reply", "edit", "delete", "react", "unreact", "history", "search", "mentions",
                "read", "seen", "chats", "delete-chat", "export", "autolog", "report", "mute", "unmute", "notify",
            ]),
        Group(
            name: "threads", summary: "conversations that hang off a message", commands: ["thread", "threads", "follow", "unfollow"]),
        Group(
            name: "groups", summary: "make, find, join and run groups",
            commands: [
                "create", "join", "list", "groups", "invite", "revoke", "leave", "members", "online", "topic", "rules", "kick",
                "op", "deop", "voice", "devoice", "ban", "unban", "bans",
            ]),
        Group(
            name: "people", summary: "who is who, who is around, reminders",
            commands: ["users", "whois", "away", "back", "remind", "reminders", "ignore", "unignore", "ignores"]),
        Group(name: "media", summary: "pictures, videos, files and saving them", commands: ["image", "video", "file", "save", "avatar"]),
        Group(name: "bots", summary: "bot plugins, bot accounts and webhooks", commands: ["plugin", "bots", "hook", "hooks"]),
        Group(
            name: "account", summary: "sign in and out, your profile, privacy and sessions",
            commands: [
                "register", "login", "code", "logout", "whoami", "passwd", "profile", "privacy", "playback", "sessions", "delete-account",
            ]),
        Group(
            name: "server", summary: "the connection and the server's admin",
            commands: [
                "connect", "status", "signup-code", "reports", "suspend", "reinstate", "suspensions", "ban-server", "unban-server",
                "server-bans", "redact", "kill", "wallops", "audit", "erase",
            ]),
        Group(name: "shell", summary: "help, scripts and leaving", commands: ["help", "wait", "sleep", "quit"]),
    ]

    static func group(named name: String) -> Group? {
        let lowered = name.lowercased()
        return all.first { $0.name == lowered }
    }
}
