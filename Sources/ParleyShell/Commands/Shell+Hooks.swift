import Foundation
import ParleyCore

/// `/hook new [#G] --name NAME [--signing-secret-env VAR]`, `/hook revoke ID [#G]`,
/// `/hooks [#G]`: a group's incoming webhooks, for its owner and admins.
extension Shell {
    func hook(_ input: inout CommandInput) async throws {
        let usage =
            "/hook new [#G] --name NAME [--signing-secret-env VAR] | /hook out [#G] --name NAME --url URL --trigger !CMD|mention"
            + " | /hook revoke ID [#G]"
        switch try input.word() {
        case "new":
            let word = try input.target()
            let options = try input.options(values: ["name", "signing-secret-env"])
            guard options.positional.isEmpty, let name = options.values["name"] else { throw ParleyError(.usage, usage) }
            var secret: String?
            if let variable = options.values["signing-secret-env"] {
                guard let value = settings.variables[variable], !value.isEmpty else {
                    throw ParleyError(.usage, "$\(variable) is not set: it holds the signing secret")
                }
                secret = value
            }
            let chat = try await groupTarget(word)
            let made = try await service.createHook(in: chat.id, name: name, signingSecret: secret)
            let label = Format.label(chat, me: me?.id)
            var lines = ["Made hook \(made.hook.id) \"\(made.hook.name)\" for \(label); its URL, shown this once (keep it secret):"]
            let url = (settings.httpURL ?? "") + made.path
            lines.append("  " + (settings.httpURL == nil ? "\(made.path)  (on the `parley serve` of this data folder)" : url))
            lines.append(
                "POST text, or Slack's, Alertmanager's or GitHub's JSON, to it\(made.hook.signed ? ", signed with X-Hub-Signature-256" : "")"
            )
            output.result("hook", lines, json: HookMade(hook: made.hook, url: url, path: made.path))
        case "out":
            let word = try input.target()
            let options = try input.options(values: ["name", "url", "trigger"])
            guard options.positional.isEmpty, let name = options.values["name"], let url = options.values["url"],
                let trigger = options.values["trigger"]
            else { throw ParleyError(.usage, usage) }
            let chat = try await groupTarget(word)
            let made = try await service.createOutgoingHook(in: chat.id, name: name, url: url, trigger: trigger)
            let label = Format.label(chat, me: me?.id)
            let when = made.hook.trigger == "mention" ? "say @\(made.hook.name)" : "start with \(made.hook.trigger ?? trigger)"
            output.result(
                "hook",
                [
                    "Made outgoing hook \(made.hook.id) \"\(made.hook.name)\": messages in \(label) that \(when) are posted to \(url)",
                    "Its calls carry X-Parley-Signature-256, made with this secret (shown this once):",
                    "  \(made.signingSecret ?? "")",
                ], json: made)
        case "revoke":
            guard let text = try input.word(), let id = Int64(text) else { throw ParleyError(.usage, usage) }
            let word = try input.target()
            try noMoreArguments(input)
            let chat = try await groupTarget(word)
            try await service.revokeHook(id, in: chat.id)
            output.result(
                "hook", ["Revoked hook \(id) of \(Format.label(chat, me: me?.id)); its URL answers 404 now"], json: ["revoked": id])
        default:
            throw ParleyError(.usage, usage)
        }
    }

    func hooks(_ input: inout CommandInput) async throws {
        let word = try input.target()
        try noMoreArguments(input)
        let chat = try await groupTarget(word)
        let hooks = try await service.hooks(in: chat.id)
        let label = Format.label(chat, me: me?.id)
        guard !hooks.isEmpty else {
            output.result("hooks", ["\(label) has no hooks: /hook new \(label) --name NAME makes one"], json: hooks)
            return
        }
        let lines = hooks.map { hook in
            let used = hook.lastUsedAt.map { "last used " + ChatLogs.stampStyle.format($0) } ?? "never used"
            var line = "  \(hook.id)  \(Sanitizer.line(hook.name))  by @\(Sanitizer.line(hook.createdBy.handle)), \(used)"
            if let url = hook.url {
                line += ", out: \(Sanitizer.line(hook.trigger ?? "")) → \(Sanitizer.line(url))"
                if let error = hook.lastError, let at = hook.lastErrorAt {
                    line += "\n      last failed \(ChatLogs.stampStyle.format(at)): \(Sanitizer.line(error))"
                }
            } else if hook.signed {
                line += ", signed"
            }
            return line
        }
        output.result("hooks", ["\(label): \(hooks.count) hook\(hooks.count == 1 ? "" : "s")"] + lines, json: hooks)
    }

    private struct HookMade: Encodable {
        var hook: Hook
        var url: String
        var path: String
    }
}
