import Foundation
import ParleyBots
import ParleyCore

extension Shell {
    func status(_ input: inout CommandInput) async throws {
        try noMoreArguments(input)
        var lines = ["Mode: \(settings.modeDescription)", "Data: \(settings.dataFolder.path)"]
        var json: [String: String] = ["mode": settings.modeDescription, "data": settings.dataFolder.path]
        if let me {
            lines.append("Signed in as \(Format.profile(me))")
            json["user"] = me.handle
            let unread = (try? await service.chats().reduce(0) { $0 + $1.unread }) ?? 0
            lines.append("Unread: \(unread)")
            json["unread"] = String(unread)
        } else {
            lines.append("Not signed in")
        }
        if let current {
            lines.append("Current chat: \(current.label)")
            json["chat"] = current.label
        }
        output.result("status", lines, json: json)
    }

    func connect(_ input: inout CommandInput) async throws {
        guard let url = try input.word() else { throw ParleyError(.usage, "/connect ws://HOST:PORT") }
        try noMoreArguments(input)
        guard let open = settings.connect else { throw ParleyError(.unavailable, "this shell cannot connect to servers") }
        await replaceService(with: try await open(url))
        var lines = ["Connected to \(Sanitizer.line(url))"]
        if let me { lines.append("Signed in as \(Format.profile(me))") }
        output.result("connect", lines, json: ["server": url, "user": me?.handle])
    }

    func help(_ input: inout CommandInput) async throws {
        if let name = try input.word() {
            try noMoreArguments(input)
            let bare = name.hasPrefix("/") ? String(name.dropFirst()) : name
            // `/help groups` is the group; `/help /groups` the command.
            if !name.hasPrefix("/"), let group = CommandGroups.group(named: bare) {
                let commands = group.commands.compactMap(CommandTable.command(named:))
                let width = commands.map(\.name.count).max() ?? 10
                let lines =
                    ["\(group.name): \(group.summary) (/help NAME for usage and an example)"]
                    + commands.map { "  /" + $0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }
                output.result("help", lines, json: commands.map { ["name": $0.name, "usage": $0.usage, "summary": $0.summary] })
                return
            }
            guard let command = CommandTable.command(named: bare) else {
                if let declared = bots?.declared.command(named: bare.lowercased()) {
                    output.result(
                        "help", ["usage: \(declared.usage)", "  \(declared.help) (a plugin's command)"],
                        json: ["name": declared.name, "usage": declared.usage, "summary": declared.help])
                    return
                }
                throw ParleyError(.unknownCommand, "no command /\(bare); /help lists them")
            }
            var lines = ["usage: \(command.usage)", "  \(command.summary)"]
            if !command.aliases.isEmpty { lines.append("  aliases: " + command.aliases.map { "/" + $0 }.joined(separator: ", ")) }
            lines.append("  example: \(command.example)")
            output.result(
                "help", lines, json: ["name": command.name, "usage": command.usage, "summary": command.summary, "example": command.example])
            return
        }
        // Groups of commands, each on a line or two: the whole fits a 24-row terminal.
        let width = CommandGroups.all.map(\.name.count).max() ?? 10
        var lines = ["Commands by what they are for (/help GROUP lists a group's, /help /NAME shows one):"]
        for group in CommandGroups.all {
            let names = group.commands.map { "/" + $0 }
            var line = "  " + group.name.padding(toLength: width + 2, withPad: " ", startingAt: 0)
            let indent = String(repeating: " ", count: line.count)
            var lineHasName = false
            for name in names {
                if lineHasName, line.count + 1 + name.count > 78 {
                    lines.append(line)
                    line = indent
                    lineHasName = false
                }
                line += (lineHasName ? " " : "") + name
                lineHasName = true
            }
            lines.append(line)
        }
        let declared = bots?.declared.all ?? []
        if !declared.isEmpty {
            lines.append("Commands of plugins:")
            for (plugin, command) in declared {
                lines.append("  /\(command.name)  \(command.help) [\(plugin)]")
            }
        }
        let (botLines, botJSON) = await botCommandsHere()
        lines += botLines
        lines.append("A line without a leading / is sent to the current chat; //text sends /text.")
        output.result(
            "help", lines, json: CommandTable.all.map { ["name": $0.name, "usage": $0.usage, "summary": $0.summary] } + botJSON)
    }

    /// The commands of the bots in the current chat (`!NAME`, answered by a bot there,
    /// headless or not), with who may run those that not everyone may.
    private func botCommandsHere() async -> ([String], [[String: String]]) {
        guard let current, let chat = current.chat, let bots = try? await service.chatCommands(in: chat.id), !bots.isEmpty else {
            return ([], [])
        }
        var lines = ["Commands of the bots in \(current.label) (type them as messages there):"]
        var json: [[String: String]] = []
        for entry in bots {
            for command in entry.commands {
                let who = command.isOpen ? "" : "; \(command.allowedText(in: current.label)) only"
                lines.append("  \(command.usage)  \(command.help) [@\(entry.bot.handle)\(who)]")
                json.append(["name": "!" + command.name, "usage": command.usage, "summary": command.help, "bot": entry.bot.handle])
            }
        }
        return (lines, json)
    }

    func sleep(_ input: inout CommandInput) async throws {
        let text = try input.required("DURATION")
        try noMoreArguments(input)
        try await Task.sleep(for: DurationText.parse(text))
    }
}
