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
        guard let url = try input.word() else { throw ParleyError(.invalidArgument, "usage: /connect ws://HOST:PORT") }
        try noMoreArguments(input)
        guard let open = settings.connect else { throw ParleyError(.unavailable, "this shell cannot connect to servers") }
        await replaceService(with: try await open(url))
        var lines = ["Connected to \(Sanitizer.line(url))"]
        if let me { lines.append("Signed in as \(Format.profile(me))") }
        output.result("connect", lines, json: ["server": url, "user": me?.handle])
    }

    func help(_ input: inout CommandInput) throws {
        if let name = try input.word() {
            try noMoreArguments(input)
            let bare = name.hasPrefix("/") ? String(name.dropFirst()) : name
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
        let width = CommandTable.all.map(\.name.count).max() ?? 10
        var lines = CommandTable.all.map { "  /" + $0.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.summary }
        lines.insert("Commands (/help NAME for usage and an example):", at: 0)
        let declared = bots?.declared.all ?? []
        if !declared.isEmpty {
            lines.append("Commands of plugins:")
            for (plugin, command) in declared {
                lines.append("  /" + command.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + "\(command.help) [\(plugin)]")
            }
        }
        lines.append("A line without a leading / is sent to the current chat; //text sends /text.")
        output.result("help", lines, json: CommandTable.all.map { ["name": $0.name, "usage": $0.usage, "summary": $0.summary] })
    }

    func sleep(_ input: inout CommandInput) async throws {
        let text = try input.required("DURATION")
        try noMoreArguments(input)
        try await Task.sleep(for: DurationText.parse(text))
    }
}
