import ParleyCore

extension Shell {
    /// Dispatches a command from the table to its implementation.
    func run(_ command: CommandSpec, _ input: inout CommandInput) async throws -> Outcome {
        switch command.name {
        case "register": try await register(&input)
        case "login": try await login(&input)
        case "logout": try await logout(&input)
        case "code": try await code(&input)
        case "whoami": try await whoami(&input)
        case "passwd": try await passwd(&input)
        case "profile": try await profile(&input)
        case "users": try await users(&input)
        case "whois": try await whois(&input)
        case "msg": try await msg(&input)
        case "query": try await query(&input)
        case "create": try await create(&input)
        case "join": try await join(&input)
        case "invite": try await invite(&input)
        case "revoke": try await revoke(&input)
        case "leave": try await leave(&input)
        case "members": try await members(&input)
        case "kick": try await kick(&input)
        case "op": try await setRole(&input, .admin)
        case "deop": try await setRole(&input, .member)
        case "online": try await online(&input)
        case "send": try await send(&input)
        case "history": try await history(&input)
        case "image": try await image(&input)
        case "video": try await video(&input)
        case "avatar": try await avatar(&input)
        case "save": try await save(&input)
        case "read": try await read(&input)
        case "seen": try await seen(&input)
        case "delete-chat": try await deleteChat(&input)
        case "search": try await search(&input)
        case "chats": try await chats(&input)
        case "groups": try await groups(&input)
        case "switch": try await switchChat(&input)
        case "status": try await status(&input)
        case "connect": try await connect(&input)
        case "plugin": try await plugin(&input)
        case "bots": try await bots(&input)
        case "signup-code": try await signupCode(&input)
        case "help": try help(&input)
        case "wait": try await wait(&input)
        case "sleep": try await sleep(&input)
        case "reply": try await reply(&input)
        case "edit": try await edit(&input)
        case "delete": try await deleteMessage(&input)
        case "react": try await react(&input, add: true)
        case "unreact": try await react(&input, add: false)
        case "mentions": try await mentions(&input)
        case "topic": try await topic(&input)
        case "rules": try await rules(&input)
        case "away": try await away(&input)
        case "back": try await back(&input)
        case "privacy": try await privacy(&input)
        case "sessions": try await sessions(&input)
        case "quit":
            try noMoreArguments(input)
            return .quit
        default:
            throw ParleyError(.unknownCommand, "unknown command /\(command.name)")
        }
        return .proceed
    }

    func noMoreArguments(_ input: CommandInput) throws {
        if !input.isEmpty { throw ParleyError(.usage, "unexpected arguments") }
    }
}
