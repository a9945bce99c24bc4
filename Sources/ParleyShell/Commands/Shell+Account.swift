import Foundation
import ParleyCore

extension Shell {
    func register(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["handle", "name", "password", "password-env", "code"])
        guard options.positional.count == 1, let email = options.positional.first else {
            throw ParleyError(
                .usage,
                "/register EMAIL [--handle H] [--name \"Full Name\"] [--password P | --password-env VAR] [--code SIGNUP-CODE]")
        }
        let password = try await password(options, confirmTwice: true)
        let signedIn = try await service.register(
            Registration(
                email: email, password: password, displayName: options.values["name"], handle: options.values["handle"],
                code: options.values["code"]))
        await adopt(signedIn, save: true)
        output.result("register", ["Welcome, \(Format.profile(signedIn.user))"], json: signedIn.user)
    }

    /// Signs the current session out before another sign-in; one the server ended
    /// already (signed out elsewhere, a suspended account) has nothing to end.
    private func signOutFirst() async throws {
        guard me != nil else { return }
        do {
            try await service.signOut()
        } catch let error as ParleyError where error.code == .notSignedIn {
            return
        }
    }

    func login(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["password", "password-env", "id-token", "id-token-env"])
        if let token = try idToken(options) {
            guard options.positional.isEmpty else { throw ParleyError(.usage, "/login --id-token TOKEN | --id-token-env VAR") }
            try await signOutFirst()
            let signedIn = try await service.signIn(idToken: token)
            await adopt(signedIn, save: true)
            output.result("login", ["Signed in as \(Format.profile(signedIn.user))"], json: signedIn.user)
            return
        }
        // A phone number may be written with spaces: +1 555 123 4567.
        let isPhone = options.positional.first?.hasPrefix("+") == true
        guard options.positional.count == 1 || isPhone,
            let login = isPhone ? options.positional.joined(separator: " ") : options.positional.first
        else {
            throw ParleyError(.usage, "/login EMAIL|@HANDLE [--password P | --password-env VAR]  |  /login +PHONE")
        }
        try await signOutFirst()
        if login.hasPrefix("+") {
            let request = try await service.requestCode(phone: login)
            pendingPhone = request.phone
            output.result(
                "login", ["Code sent to \(request.phone), valid until \(Format.time(request.expiresAt)): /code NNNNNN signs in"],
                json: request)
            return
        }
        let password = try await password(options, confirmTwice: false)
        let signedIn = try await service.signIn(login: login, password: password)
        await adopt(signedIn, save: true)
        output.result("login", ["Signed in as \(Format.profile(signedIn.user))"], json: signedIn.user)
    }

    /// `/code NNNNNN [+PHONE]`: signs in with the code the last `/login +PHONE` sent.
    func code(_ input: inout CommandInput) async throws {
        let options = try input.options()
        guard (1...2).contains(options.positional.count) else { throw ParleyError(.usage, "/code NNNNNN [+PHONE]") }
        guard let phone = options.positional.count == 2 ? options.positional[1] : pendingPhone else {
            throw ParleyError(.usage, "no code was asked for: /login +PHONE first")
        }
        try await signOutFirst()
        let signedIn = try await service.signIn(phone: phone, code: options.positional[0])
        pendingPhone = nil
        await adopt(signedIn, save: true)
        if signedIn.needsProfile {
            output.result(
                "code", ["Welcome! Your account is new: choose a display name with /profile --name \"Your Name\""], json: signedIn.user)
        } else {
            output.result("code", ["Signed in as \(Format.profile(signedIn.user))"], json: signedIn.user)
        }
    }

    /// The ID token from `--id-token` or `--id-token-env`, if given.
    private func idToken(_ options: CommandInput.Options) throws -> String? {
        if let token = options.values["id-token"] { return token }
        guard let variable = options.values["id-token-env"] else { return nil }
        guard let value = settings.variables[variable] else {
            throw ParleyError(.unknownVariable, "the environment variable \(variable) is not set")
        }
        return value
    }

    /// The password from `--password`, `--password-env`, or a prompt without echo.
    func password(_ options: CommandInput.Options, confirmTwice: Bool) async throws -> String {
        if let password = options.values["password"] { return password }
        if let variable = options.values["password-env"] {
            guard let value = settings.variables[variable] else {
                throw ParleyError(.unknownVariable, "the environment variable \(variable) is not set")
            }
            return value
        }
        return try await promptSecret("Password: ", confirm: confirmTwice ? "Again: " : nil)
    }

    static let cancelled = ParleyError(.cancelled, "cancelled; nothing was changed")

    func promptSecret(_ prompt: String, confirm: String?) async throws -> String {
        guard settings.interactive, let readSecret = settings.readSecret else {
            throw ParleyError(.usage, "no password given: use --password or --password-env in a script")
        }
        guard let first = await readSecret(prompt) else { throw Self.cancelled }
        if let confirm {
            guard let again = await readSecret(confirm) else { throw Self.cancelled }
            guard again == first else { throw ParleyError(.invalidPassword, "the two passwords differ") }
        }
        return first
    }

    func logout(_ input: inout CommandInput) async throws {
        try noMoreArguments(input)
        let user = try requireMe()
        try await service.signOut()
        SessionFile(folder: settings.dataFolder).remove()
        me = nil
        current = nil
        output.result("logout", ["Signed out @\(Sanitizer.line(user.handle))"], json: ["handle": user.handle])
    }

    func whoami(_ input: inout CommandInput) async throws {
        try noMoreArguments(input)
        _ = try requireMe()
        let user = try await service.me()
        output.result("whoami", [Format.profile(user)], json: user)
    }

    func passwd(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["current", "current-env", "new", "new-env"])
        try noMoreArguments(CommandInput(options.positional.joined(separator: " "), tokenizer: tokenizer))
        _ = try requireMe()
        let current = try await secret(options, "current", prompt: "Current password: ", confirm: nil)
        let new = try await secret(options, "new", prompt: "New password: ", confirm: "Again: ")
        try await service.changePassword(current: current, new: new)
        output.result("passwd", ["Password changed; your other sessions are signed out"], json: ["changed": true])
    }

    private func secret(_ options: CommandInput.Options, _ name: String, prompt: String, confirm: String?) async throws -> String {
        if let value = options.values[name] { return value }
        if let variable = options.values[name + "-env"] {
            guard let value = settings.variables[variable] else {
                throw ParleyError(.unknownVariable, "the environment variable \(variable) is not set")
            }
            return value
        }
        return try await promptSecret(prompt, confirm: confirm)
    }

    func profile(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["name"])
        guard options.positional.isEmpty else { throw ParleyError(.usage, "/profile [--name \"Full Name\"]") }
        _ = try requireMe()
        let user: User
        if let name = options.values["name"] {
            user = try await service.updateProfile(displayName: name)
            me = user
        } else {
            user = try await service.me()
        }
        output.result("profile", [Format.profile(user)], json: user)
    }

    /// Where `--page N` (from 1; 50 a page) starts, and the page's size.
    static func page(_ options: CommandInput.Options) throws(ParleyError) -> (offset: Int, size: Int) {
        let size = 50
        let page = try options.integer("page") ?? 1
        guard page >= 1 else { throw ParleyError(.usage, "--page starts at 1") }
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: size)
        guard !overflow else { throw ParleyError(.usage, "--page is too large") }
        return (offset, size)
    }

    func users(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["page"])
        guard options.positional.count <= 1 else { throw ParleyError(.usage, "/users [QUERY] [--page N]") }
        let (offset, pageSize) = try Self.page(options)
        let users = try await service.searchUsers(options.positional.first ?? "", limit: pageSize, offset: offset)
        completions.add(users: users.map(\.handle), groups: [])
        let lines = users.isEmpty ? ["No users found"] : users.map(Format.profile)
        output.result("users", lines, json: users)
    }

}
