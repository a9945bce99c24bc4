import Foundation
import ParleyCore

extension Shell {
    /// `/bots` lists the user's bot accounts; `/bots new @H` makes one; `/bots token`,
    /// `/bots tokens` and `/bots revoke` manage the tokens they sign in with.
    func bots(_ input: inout CommandInput) async throws {
        let usage =
            "/bots  |  /bots new @H [--name \"Name\"] [--password P | --password-env VAR]  |  /bots token @H [--name NAME]"
            + "  |  /bots tokens @H  |  /bots revoke @H ID"
        let options = try input.options(values: ["name", "password", "password-env"])
        _ = try requireMe()
        guard let verb = options.positional.first else {
            guard options.values.isEmpty else { throw ParleyError(.usage, usage) }
            let bots = try await service.bots()
            output.result("bots", bots.isEmpty ? ["You own no bot accounts"] : bots.map(Format.profile), json: bots)
            return
        }
        if ["token", "tokens", "revoke"].contains(verb) { return try await botTokens(verb, options, usage: usage) }
        guard verb == "new", options.positional.count == 2 else { throw ParleyError(.usage, usage) }
        // A bot signs in with tokens; a password only when one is given.
        let given = options.values["password"] != nil || options.values["password-env"] != nil
        let password = given ? try await password(options, confirmTwice: true) : nil
        // The engine reads the handle as any other (`@` or not).
        let bot = try await service.createBot(
            NewBot(handle: options.positional[1], displayName: options.values["name"], password: password))
        completions.add(users: [bot.handle], groups: [])
        output.result(
            "bots",
            [
                "Made \(Format.profile(bot)); "
                    + (password == nil
                        ? "it signs in with a token: /bots token @\(Sanitizer.line(bot.handle))"
                        : "it signs in as @\(Sanitizer.line(bot.handle)) with that password or a token")
            ], json: bot)
    }

    private func botTokens(_ verb: String, _ options: CommandInput.Options, usage: String) async throws {
        guard options.positional.count >= 2, options.positional[1].hasPrefix("@") else { throw ParleyError(.usage, usage) }
        let bot = try await user(options.positional[1])
        let label = "@" + Sanitizer.line(bot.handle)
        switch (verb, options.positional.count) {
        case ("token", 2):
            let made = try await service.createBotToken(for: bot.id, name: options.values["name"] ?? "token")
            output.result(
                "bots",
                [
                    "Made token \(made.token.id) \"\(Sanitizer.line(made.token.name))\" for \(label); shown this once (keep it secret):",
                    "  \(made.secret)",
                    "It signs \(label) in: parley bot --token-env VAR, IRC SASL PLAIN as its password, or Authorization: Bearer",
                ], json: made)
        case ("tokens", 2):
            let tokens = try await service.botTokens(for: bot.id)
            let lines = tokens.map { token in
                "  \(token.id)  \(Sanitizer.line(token.name))  made \(ChatLogs.stampStyle.format(token.createdAt)), "
                    + (token.lastUsedAt.map { "last used " + ChatLogs.stampStyle.format($0) } ?? "never used")
            }
            output.result("bots", tokens.isEmpty ? ["\(label) has no tokens: /bots token \(label) makes one"] : lines, json: tokens)
        case ("revoke", 3):
            guard let id = Int64(options.positional[2]) else { throw ParleyError(.usage, usage) }
            try await service.revokeBotToken(id, of: bot.id)
            output.result("bots", ["Revoked token \(id) of \(label); the connections it opened are closed"], json: ["revoked": id])
        default:
            throw ParleyError(.usage, usage)
        }
    }

    /// `/signup-code`: codes to register with on a server that registers by invitation.
    func signupCode(_ input: inout CommandInput) async throws {
        let usage = "/signup-code [--uses N] [--expires 30m|2h|7d]  |  /signup-code --list  |  /signup-code --revoke CODE"
        let options = try input.options(values: ["uses", "expires", "revoke"], flags: ["list"])
        guard options.positional.isEmpty else { throw ParleyError(.usage, usage) }
        _ = try requireMe()
        if let code = options.values["revoke"] {
            guard options.values.count == 1, options.flags.isEmpty else { throw ParleyError(.usage, usage) }
            try await service.revokeSignupCode(code)
            output.result("signup-code", ["Revoked \(Sanitizer.line(code))"], json: ["code": code])
        } else if options.flags.contains("list") {
            guard options.values.isEmpty else { throw ParleyError(.usage, usage) }
            let codes = try await service.signupCodes()
            output.result("signup-code", codes.isEmpty ? ["No sign-up codes can be used now"] : codes.map(Self.describe), json: codes)
        } else {
            let expires = try options.values["expires"].map { try DurationText.parse($0) }
            let code = try await service.createSignupCode(maxUses: try options.integer("uses"), expiresIn: expires)
            output.result("signup-code", [Self.describe(code) + "  (/register EMAIL --code \(code.code))"], json: code)
        }
    }

    private static func describe(_ code: SignupCode) -> String {
        var details = [code.usesLeft.map { "\($0) use\($0 == 1 ? "" : "s") left" } ?? "any number of uses"]
        if let expiry = code.expiresAt { details.append("expires \(Format.day(expiry)) \(Format.time(expiry))") }
        return "\(Sanitizer.line(code.code)) (\(details.joined(separator: ", ")))"
    }
}
