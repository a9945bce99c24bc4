import ParleyCore

/// Every command the shell knows: its name, aliases, usage, help, an example, and what
/// it does. The table drives `/help`, tab completion and dispatch.
public struct CommandSpec: Sendable {
    public var name: String
    public var aliases: [String] = []
    public var usage: String
    public var summary: String
    public var example: String
    /// Runs the command in the shell that read it.
    let perform: @Sendable (isolated Shell, inout CommandInput) async throws -> Shell.Outcome
    /// For a command that only sends text (`/send`, `/msg`): where to and what, read
    /// from its arguments. Lines of such commands can go to the engine as one batch.
    let textParts: (@Sendable (inout CommandInput) throws(ParleyError) -> (target: String?, text: String))?

    /// A command after which the shell goes on.
    init(
        name: String, aliases: [String] = [], usage: String, summary: String, example: String,
        textParts: (@Sendable (inout CommandInput) throws(ParleyError) -> (target: String?, text: String))? = nil,
        perform: @escaping @Sendable (isolated Shell, inout CommandInput) async throws -> Void
    ) {
        self.init(name: name, aliases: aliases, usage: usage, summary: summary, example: example, textParts: textParts) {
            try await perform($0, &$1)
            return .proceed
        }
    }

    /// A command that says whether the shell goes on.
    init(
        name: String, aliases: [String] = [], usage: String, summary: String, example: String,
        textParts: (@Sendable (inout CommandInput) throws(ParleyError) -> (target: String?, text: String))? = nil,
        outcome: @escaping @Sendable (isolated Shell, inout CommandInput) async throws -> Shell.Outcome
    ) {
        self.name = name
        self.aliases = aliases
        self.usage = usage
        self.summary = summary
        self.example = example
        self.textParts = textParts
        self.perform = outcome
    }
}

public enum CommandTable {
    public static let all: [CommandSpec] = everyday + threads + moderation

    private static let everyday: [CommandSpec] = [
        CommandSpec(
            name: "register",
            usage: "/register EMAIL [--handle H] [--name \"Full Name\"] [--password P | --password-env VAR] [--code SIGNUP-CODE]",
            summary: "create an account and sign in (prompts for the password on a terminal; --code where the server asks for one)",
            example: "/register alice@example.com --handle alice --name \"Alice Liddell\""
        ) { shell, input in try await shell.register(&input) },
        CommandSpec(
            name: "login", usage: "/login EMAIL|@HANDLE [--password P | --password-env VAR]  |  /login +PHONE  |  /login --id-token TOKEN",
            summary: "sign in with a password, a one-time code sent to a phone, or an OpenID Connect ID token",
            example: "/login +15551234567"
        ) { shell, input in try await shell.login(&input) },
        CommandSpec(
            name: "code", usage: "/code NNNNNN [+PHONE]",
            summary: "sign in with the code sent by /login +PHONE (a new account then picks a name)", example: "/code 123456"
        ) { shell, input in try await shell.code(&input) },
        CommandSpec(name: "logout", usage: "/logout", summary: "sign out and forget the saved session", example: "/logout") {
            shell, input in try await shell.logout(&input)
        },
        CommandSpec(name: "whoami", usage: "/whoami", summary: "show who you are signed in as", example: "/whoami") { shell, input in
            try await shell.whoami(&input)
        },
        CommandSpec(
            name: "passwd", usage: "/passwd [--current P | --current-env VAR] [--new P | --new-env VAR]",
            summary: "change your password (signs out your other sessions)", example: "/passwd"
        ) { shell, input in try await shell.passwd(&input) },
        CommandSpec(
            name: "profile", usage: "/profile [--name \"Full Name\"]", summary: "show or change your profile",
            example: "/profile --name \"Alice L.\""
        ) { shell, input in try await shell.profile(&input) },
        CommandSpec(
            name: "users", aliases: ["who"], usage: "/users [QUERY] [--page N]",
            summary: "search the user directory by handle, name or email prefix", example: "/users ali"
        ) { shell, input in try await shell.users(&input) },
        CommandSpec(
            name: "whois", usage: "/whois @H",
            summary: "a user's profile: joined, last signed in, last seen, online or away", example: "/whois @bob"
        ) { shell, input in try await shell.whois(&input) },
        CommandSpec(
            name: "away", usage: "/away [MESSAGE]",
            summary: "mark yourself away (shown in /online and /whois, and once to whoever messages you directly)",
            example: "/away at lunch until 2"
        ) { shell, input in try await shell.away(&input) },
        CommandSpec(name: "back", usage: "/back", summary: "no longer away (sending a message does it too)", example: "/back") {
            shell, input in try await shell.back(&input)
        },
        CommandSpec(
            name: "privacy", usage: "/privacy last-seen hide|show",
            summary: "hide when you were last around (you then see nobody else's either)", example: "/privacy last-seen hide"
        ) { shell, input in try await shell.privacy(&input) },
        CommandSpec(
            name: "playback", usage: "/playback [off|COUNT|default]",
            summary: "what your IRC clients without history are played back of each chat when they connect", example: "/playback 20"
        ) { shell, input in try await shell.playback(&input) },
        CommandSpec(
            name: "sessions", usage: "/sessions  |  /sessions revoke ID",
            summary: "your open sessions (program, address, started, last active), or end one", example: "/sessions revoke 3fa2c901"
        ) { shell, input in try await shell.sessions(&input) },
        CommandSpec(
            name: "msg", aliases: ["m"], usage: "/msg @H TEXT",
            summary: "send a direct message (the first one creates the chat)", example: "/msg @bob lunch at noon?",
            textParts: Shell.msgParts
        ) { shell, input in try await shell.msg(&input) },
        CommandSpec(name: "query", usage: "/query @H", summary: "make the direct chat with a user current", example: "/query @bob") {
            shell, input in try await shell.query(&input)
        },
        CommandSpec(
            name: "create", usage: "/create #G [TITLE] [--private]",
            summary: "create a group (public unless --private) and switch to it", example: "/create #swift Swift on Linux"
        ) { shell, input in try await shell.create(&input) },
        CommandSpec(
            name: "join", aliases: ["j"], usage: "/join #G [KEY]|CODE|parley://join/CODE",
            summary: "join a public group (with its key, if it has one), or any group with an invite",
            example: "/join parley://join/abcd…"
        ) { shell, input in try await shell.join(&input) },
        CommandSpec(
            name: "invite", usage: "/invite @H [#G]  |  /invite --link [#G] [--uses N] [--expires 30m|2h|7d]",
            summary: "add a user to a group, or make an invite link", example: "/invite --link #swift --uses 5 --expires 7d"
        ) { shell, input in try await shell.invite(&input) },
        CommandSpec(name: "revoke", usage: "/revoke CODE", summary: "revoke an invite link", example: "/revoke parley://join/abcd…") {
            shell, input in try await shell.revoke(&input)
        },
        CommandSpec(name: "leave", aliases: ["part"], usage: "/leave [#G]", summary: "leave a group", example: "/leave #swift") {
            shell, input in try await shell.leave(&input)
        },
        CommandSpec(
            name: "members", aliases: ["names"], usage: "/members [#G]", summary: "list a group's members and roles",
            example: "/members #swift"
        ) { shell, input in try await shell.members(&input) },
        CommandSpec(name: "kick", usage: "/kick @H [#G]", summary: "remove a member (owner and admins)", example: "/kick @mallory #swift") {
            shell, input in try await shell.kick(&input)
        },
        CommandSpec(name: "op", usage: "/op @H [#G]", summary: "make a member an admin (owner and admins)", example: "/op @bob #swift") {
            shell, input in try await shell.setRole(&input, .admin)
        },
        CommandSpec(name: "deop", usage: "/deop @H [#G]", summary: "make an admin a plain member (owner)", example: "/deop @bob #swift") {
            shell, input in try await shell.setRole(&input, .member)
        },
        CommandSpec(
            name: "voice", usage: "/voice @H [#G]", summary: "let a member post in a moderated group (owner and admins)",
            example: "/voice @bob #news"
        ) { shell, input in try await shell.setRole(&input, .voiced) },
        CommandSpec(
            name: "devoice", usage: "/devoice @H [#G]", summary: "make a voiced member a plain member (owner and admins)",
            example: "/devoice @bob #news"
        ) { shell, input in try await shell.setRole(&input, .member) },
        CommandSpec(
            name: "ban", usage: "/ban @H [#G]", summary: "remove a user and keep them out until unbanned (owner and admins)",
            example: "/ban @mallory #swift"
        ) { shell, input in try await shell.ban(&input, banned: true) },
        CommandSpec(
            name: "unban", usage: "/unban @H [#G]", summary: "let a banned user join or be invited again (owner and admins)",
            example: "/unban @mallory #swift"
        ) { shell, input in try await shell.ban(&input, banned: false) },
        CommandSpec(name: "bans", usage: "/bans [#G]", summary: "who is banned from a group", example: "/bans #swift") {
            shell, input in try await shell.bans(&input)
        },
        CommandSpec(
            name: "topic", usage: "/topic [#G] [TEXT | --clear]",
            summary: "show or set a group's topic (owner and admins, or anyone if the rules allow)",
            example: "/topic #swift Swift 6.2 on Linux"
        ) { shell, input in try await shell.topic(&input) },
        CommandSpec(
            name: "rules",
            usage: "/rules [#G] [topic=anyone|admins] [mentions=anyone|admins] [posting=anyone|voiced] "
                + "[visibility=public|private] [listed=yes|no] [limit=N|none] [key=KEY|none] [keep=DAYS|server]",
            summary:
                "show or change a group's rules: topic, @all, who posts, public or private, listed, member limit, key (owner and admins)",
            example: "/rules #swift topic=anyone limit=50"
        ) { shell, input in try await shell.rules(&input) },
        CommandSpec(
            name: "online", usage: "/online [#G]", summary: "who in a group is online, and who is looking at it",
            example: "/online #swift"
        ) { shell, input in try await shell.online(&input) },
        CommandSpec(
            name: "send", aliases: ["say"], usage: "/send [#G|@H] TEXT  |  /send [#G|@H] <<EOF … EOF",
            summary: "send a message to a chat (the current one by default)", example: "/send #swift hello", textParts: Shell.sendParts
        ) { shell, input in try await shell.send(&input) },
        CommandSpec(
            name: "reply", aliases: ["re"], usage: "/reply [#G|@H] SEQ TEXT",
            summary: "answer a message; the answer shows the head of the original", example: "/reply 42 agreed, ship it"
        ) { shell, input in try await shell.reply(&input) },
        CommandSpec(
            name: "edit", usage: "/edit [#G|@H] SEQ NEW TEXT",
            summary: "change the text of one of your messages (within 24 hours by default)", example: "/edit 42 ship it friday"
        ) { shell, input in try await shell.edit(&input) },
        CommandSpec(
            name: "delete", usage: "/delete [#G|@H] SEQ",
            summary: "delete a message of yours, or (owner and admins) a member's; it stays as a tombstone", example: "/delete 42"
        ) { shell, input in try await shell.deleteMessage(&input) },
        CommandSpec(
            name: "react", usage: "/react [#G|@H] SEQ EMOJI", summary: "react to a message with an emoji", example: "/react 42 👍"
        ) { shell, input in try await shell.react(&input, add: true) },
        CommandSpec(
            name: "unreact", usage: "/unreact [#G|@H] SEQ EMOJI", summary: "take your reaction back", example: "/unreact 42 👍"
        ) { shell, input in try await shell.react(&input, add: false) },
        CommandSpec(
            name: "mentions", usage: "/mentions [N]", summary: "recent messages that mention you (@you, @all, @here)",
            example: "/mentions 10"
        ) { shell, input in try await shell.mentions(&input) },
        CommandSpec(
            name: "image", aliases: ["img"], usage: "/image [#G|@H] [--no-preview] PATH [CAPTION]",
            summary: "send a PNG, JPEG, GIF or WebP image (up to 10 MiB)", example: "/image #swift ~/shots/build.png green at last"
        ) { shell, input in try await shell.image(&input) },
        CommandSpec(
            name: "video", usage: "/video [#G|@H] PATH [CAPTION]",
            summary: "send an MP4, MOV or WebM video (up to 200 MiB)", example: "/video @bob clip.mp4 the demo"
        ) { shell, input in try await shell.video(&input) },
        CommandSpec(
            name: "hook",
            usage:
                "/hook new [#G] --name NAME [--signing-secret-env VAR] | /hook out [#G] --name NAME --url URL --trigger !CMD|mention | /hook revoke ID [#G]",
            summary: "a URL that posts to a group, a URL the group's !commands are posted to, or revoke one (owner, admins)",
            example: "/hook new #ops --name CI"
        ) { shell, input in try await shell.hook(&input) },
        CommandSpec(
            name: "remind", usage: "/remind [#G|@H] WHEN TEXT",
            summary: "a reminder for you alone, kept by the server (WHEN: 10m, 1h30m, 2d, 14:30, 2026-12-01T09:00)",
            example: "/remind 10m stand-up"
        ) { shell, input in try await shell.remind(&input) },
        CommandSpec(
            name: "reminders", usage: "/reminders [cancel ID]", summary: "your pending reminders, or cancel one",
            example: "/reminders cancel 3"
        ) { shell, input in try await shell.reminders(&input) },
        CommandSpec(name: "hooks", usage: "/hooks [#G]", summary: "a group's incoming webhooks (owner, admins)", example: "/hooks #ops") {
            shell, input in try await shell.hooks(&input)
        },
        CommandSpec(
            name: "file", usage: "/file [#G|@H] [--no-preview] PATH [CAPTION]",
            summary: "send any file with its name (up to 25 MiB; images and videos stay images and videos)",
            example: "/file #ops ~/reports/q3.pdf the numbers"
        ) { shell, input in try await shell.file(&input) },
        CommandSpec(
            name: "save", usage: "/save [#G|@H] SEQ [PATH] [--force]",
            summary: "save an image, video or file message's original file (its own name by default; never overwrites without --force)",
            example: "/save #swift 42 ~/Downloads/"
        ) { shell, input in try await shell.save(&input) },
        CommandSpec(
            name: "avatar", usage: "/avatar PATH | /avatar --remove", summary: "set or remove your profile picture",
            example: "/avatar ~/me.jpg"
        ) { shell, input in try await shell.avatar(&input) },
        CommandSpec(
            name: "history", aliases: ["log"], usage: "/history [#G|@H|#G/N] [N] [--before SEQ]",
            summary: "show the last N messages (default 20), or N before a sequence number", example: "/history #swift 50"
        ) { shell, input in try await shell.history(&input) },
        CommandSpec(name: "read", usage: "/read [#G|@H]", summary: "mark a chat read up to its last message", example: "/read #swift") {
            shell, input in try await shell.read(&input)
        },
        CommandSpec(
            name: "seen", usage: "/seen [#G|@H] [SEQ]", summary: "who has read a message (the last one by default)",
            example: "/seen #swift 42"
        ) { shell, input in try await shell.seen(&input) },
        CommandSpec(
            name: "delete-chat", usage: "/delete-chat [#G|@H]",
            summary: "remove a chat and its history from your list (others keep theirs)", example: "/delete-chat @bob"
        ) { shell, input in try await shell.deleteChat(&input) },
        CommandSpec(
            name: "export", usage: "/export [#G|@H] FILE [--json] | /export me FILE | /export account @H FILE",
            summary:
                "write a chat's whole history to a file, oldest first (--json: an object a line); `me`: all the server holds about you, files too",
            example: "/export #swift ~/swift.log"
        ) { shell, input in try await shell.export(&input) },
        CommandSpec(
            name: "autolog", usage: "/autolog [on [DIR] | off]",
            summary: "keep each chat in a plain-text file of its own (DIR: DATA/logs), kept for this data folder",
            example: "/autolog on ~/irclogs/parley"
        ) { shell, input in try await shell.autolog(&input) },
        CommandSpec(
            name: "search", usage: "/search WORDS [from:@H] [in:#G|@H|#G/N] [before:DATE] [after:DATE] [on:DATE] [--context N]",
            summary: "find messages by words, sender, chat and date (DATE: 2026-11-29, 2026-11-29T14:30, today, 7d)",
            example: "/search deploy from:@bob in:#ops after:7d --context 2"
        ) { shell, input in try await shell.search(&input) },
        CommandSpec(name: "chats", usage: "/chats", summary: "your chats with the last message and unread count", example: "/chats") {
            shell, input in try await shell.chats(&input)
        },
        CommandSpec(name: "groups", usage: "/groups", summary: "the groups you are in", example: "/groups") { shell, input in
            try await shell.groups(&input)
        },
        CommandSpec(
            name: "list", usage: "/list [PREFIX] [--page N]", summary: "the public groups, with their member counts and topics",
            example: "/list sw"
        ) { shell, input in try await shell.listGroups(&input) },
        CommandSpec(name: "switch", aliases: ["s"], usage: "/switch #G|@H", summary: "make a chat current", example: "/switch #swift") {
            shell, input in try await shell.switchChat(&input)
        },
        CommandSpec(
            name: "connect", usage: "/connect ws://HOST:PORT",
            summary: "talk to a Parley server instead (signs back in with its saved session)",
            example: "/connect ws://127.0.0.1:7878"
        ) { shell, input in try await shell.connect(&input) },
        CommandSpec(
            name: "plugin", aliases: ["plugins"],
            usage:
                "/plugin load PATH [--as @HANDLE] [--name NAME] [--rate N] [ARGS...]  |  /plugin list  |  /plugin unload NAME  |  /plugin reload NAME",
            summary: "run a bot plugin (as you, or as its own bot account with --as)", example: "/plugin load plugins/dice.py --as @dice"
        ) { shell, input in try await shell.plugin(&input) },
        CommandSpec(
            name: "bots",
            usage:
                "/bots  |  /bots new @H [--name \"Name\"] [--password P | --password-env VAR]  |  /bots token @H [--name NAME]  |  /bots tokens @H  |  /bots revoke @H ID",
            summary: "list the bot accounts you own, make one, or make, list and revoke the tokens it signs in with",
            example: "/bots new @deploy --name \"Deploy Bot\""
        ) { shell, input in try await shell.bots(&input) },
        CommandSpec(
            name: "signup-code",
            usage: "/signup-code [--uses N] [--expires 30m|2h|7d]  |  /signup-code --list  |  /signup-code --revoke CODE",
            summary: "make, list or revoke codes to register with (server admins, when the server registers by invitation)",
            example: "/signup-code --uses 1 --expires 7d"
        ) { shell, input in try await shell.signupCode(&input) },
        CommandSpec(name: "status", usage: "/status", summary: "mode, data folder, user and current chat", example: "/status") {
            shell, input in try await shell.status(&input)
        },
        CommandSpec(
            name: "help", aliases: ["h", "?"], usage: "/help [GROUP|CMD]", summary: "list commands by group, a group's, or one",
            example: "/help invite"
        ) { shell, input in try await shell.help(&input) },
        CommandSpec(
            name: "wait", usage: "/wait [--timeout S] [#G|@H|#G/N] REGEX",
            summary: "wait for a message matching REGEX (default timeout 10 s)", example: "/wait --timeout 5 #dice rolled \\d+"
        ) { shell, input in try await shell.wait(&input) },
        CommandSpec(name: "sleep", usage: "/sleep DURATION", summary: "pause a script (500ms, 2s, 1m)", example: "/sleep 500ms") {
            shell, input in try await shell.sleep(&input)
        },
        CommandSpec(
            name: "quit", aliases: ["exit", "q"], usage: "/quit", summary: "leave the shell", example: "/quit",
            outcome: { shell, input in
                try shell.noMoreArguments(input)
                return .quit
            }),
    ]

    static func command(named name: String) -> CommandSpec? {
        let lowered = name.lowercased()
        return all.first { $0.name == lowered || $0.aliases.contains(lowered) }
    }

    public static var allNames: [String] { all.flatMap { [$0.name] + $0.aliases.filter { $0.count > 1 && $0 != "?" } } }

    private static let longestName = all.map(\.name.utf8.count).max() ?? 0

    /// The closest command name, for "did you mean".
    static func suggestion(for name: String) -> String? {
        // Within two edits of a command name, so never longer than the longest by more:
        // a huge name costs nothing to refuse.
        guard name.utf8.count <= longestName + 2 else { return nil }
        let lowered = name.lowercased()
        if let prefixed = all.first(where: { $0.name.hasPrefix(lowered) && !lowered.isEmpty }) { return prefixed.name }
        return all.map { ($0.name, distance($0.name, lowered)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return row[b.count]
    }
}
