import ParleyCore

/// The commands of moderation: what everyone has (report, ignore, notification levels)
/// and what the server's operators have (suspend, server bans, redact, the audit log).
extension CommandTable {
    static let moderation: [CommandSpec] = [
        CommandSpec(
            name: "report", usage: "/report [#G|@H] SEQ [REASON]", summary: "report a message to the server's operators",
            example: "/report #swift 42 spam"
        ) { shell, input in try await shell.report(&input) },
        CommandSpec(
            name: "reports", usage: "/reports [--all] | /reports resolve ID [NOTE]",
            summary: "the reports queue, or resolve one (server operators)", example: "/reports resolve 3 warned them"
        ) { shell, input in try await shell.reports(&input) },
        CommandSpec(
            name: "ignore", usage: "/ignore @H",
            summary: "stop hearing someone: messages, mentions, invites, direct messages (every client)",
            example: "/ignore @spammer"
        ) { shell, input in try await shell.ignore(&input) },
        CommandSpec(name: "unignore", usage: "/unignore @H", summary: "hear someone again", example: "/unignore @bob") {
            shell, input in try await shell.unignore(&input)
        },
        CommandSpec(name: "ignores", usage: "/ignores", summary: "whom you ignore", example: "/ignores") { shell, input in
            try await shell.ignores(&input)
        },
        CommandSpec(
            name: "mute", usage: "/mute [#G|@H]", summary: "nothing of a chat rings (unread still counted)", example: "/mute #random"
        ) {
            shell, input in try await shell.mute(&input)
        },
        CommandSpec(name: "unmute", usage: "/unmute [#G|@H]", summary: "back to the default level", example: "/unmute #random") {
            shell, input in try await shell.unmute(&input)
        },
        CommandSpec(
            name: "notify", usage: "/notify [#G|@H] all|mentions|none|default", summary: "what of a chat rings the bell, on every client",
            example: "/notify #ops all"
        ) { shell, input in try await shell.notify(&input) },
        CommandSpec(
            name: "suspend", usage: "/suspend @H REASON",
            summary: "end an account's sessions and refuse its sign-in, its bots' too (server operators)",
            example: "/suspend @spammer posting links in every group"
        ) { shell, input in try await shell.suspend(&input) },
        CommandSpec(
            name: "kill", usage: "/kill @H [REASON]",
            summary: "end an account's sessions everywhere; it may sign in again (server operators; IRC's KILL)",
            example: "/kill @bob cool off"
        ) { shell, input in try await shell.kill(&input) },
        CommandSpec(
            name: "wallops", usage: "/wallops TEXT", summary: "a notice to everyone connected (server operators; IRC's WALLOPS)",
            example: "/wallops restart at noon"
        ) { shell, input in try await shell.wallops(&input) },
        CommandSpec(
            name: "reinstate", usage: "/reinstate @H", summary: "lift a suspension (server operators)", example: "/reinstate @bob"
        ) { shell, input in try await shell.reinstate(&input) },
        CommandSpec(
            name: "suspensions", usage: "/suspensions", summary: "suspended accounts (server operators)", example: "/suspensions"
        ) { shell, input in try await shell.suspensions(&input) },
        CommandSpec(
            name: "ban-server", usage: "/ban-server @H|PATTERN|CIDR [--for 7d] [REASON]",
            summary: "ban an account, a handle pattern (spam*) or an address range from the server (server operators)",
            example: "/ban-server 203.0.113.0/24 --for 7d spam wave"
        ) { shell, input in try await shell.banServer(&input) },
        CommandSpec(
            name: "unban-server", usage: "/unban-server ID|@H|PATTERN|CIDR", summary: "lift a server ban (server operators)",
            example: "/unban-server 203.0.113.0/24"
        ) { shell, input in try await shell.unbanServer(&input) },
        CommandSpec(
            name: "server-bans", usage: "/server-bans", summary: "the server's bans (server operators)", example: "/server-bans"
        ) { shell, input in try await shell.serverBans(&input) },
        CommandSpec(
            name: "redact", usage: "/redact @H [--since WHEN] [--until WHEN] [REASON]",
            summary: "delete what an account posted, everywhere, media too (server operators; WHEN: 2h, 3d, 2026-11-01T09:00)",
            example: "/redact @spammer --since 2h spam"
        ) { shell, input in try await shell.redact(&input) },
        CommandSpec(
            name: "delete-account", usage: "/delete-account [--password P | --password-env VAR | --no-password]",
            summary: "delete your account for good: profile, email, phone, sessions, files; your handle is held back for a while",
            example: "/delete-account"
        ) { shell, input in try await shell.deleteAccount(&input) },
        CommandSpec(
            name: "erase", usage: "/erase @H [REASON]", summary: "erase an account as /delete-account would (server operators)",
            example: "/erase @spammer by request"
        ) { shell, input in try await shell.erase(&input) },
        CommandSpec(
            name: "audit", usage: "/audit [#G] [@ACTOR] [--before ID] [N]",
            summary: "who did what: the whole log for operators, a group's for its owner and admins", example: "/audit #swift 20"
        ) { shell, input in try await shell.audit(&input) },
    ]
}
