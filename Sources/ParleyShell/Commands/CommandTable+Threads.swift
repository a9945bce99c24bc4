import ParleyCore

/// The commands of threads: entering one, listing a chat's, following.
extension CommandTable {
    static let threads: [CommandSpec] = [
        CommandSpec(
            name: "thread", usage: "/thread [#G|@H] N [TITLE]  |  /thread",
            summary: "enter the thread of message N (naming it with TITLE): lines then go there; /thread alone goes back",
            example: "/thread 12 deploy friday"
        ) { shell, input in try await shell.thread(&input) },
        CommandSpec(
            name: "threads", usage: "/threads [#G|@H]", summary: "a chat's threads: replies, unread, last activity",
            example: "/threads #ops"
        ) { shell, input in try await shell.threads(&input) },
        CommandSpec(
            name: "follow", usage: "/follow [#G|@H] [N]", summary: "follow a thread: its messages reach you live and in the hotlist",
            example: "/follow 12"
        ) { shell, input in try await shell.follow(&input) },
        CommandSpec(
            name: "unfollow", usage: "/unfollow [#G|@H] [N]", summary: "stop following a thread (a mention does not bring it back)",
            example: "/unfollow #ops 12"
        ) { shell, input in try await shell.unfollow(&input) },
    ]
}
