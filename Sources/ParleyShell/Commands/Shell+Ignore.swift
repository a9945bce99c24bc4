import ParleyCore

/// `/ignore @H`, `/unignore @H`, `/ignores`: kept by the server, so every client of the
/// user (IRC too) stops hearing whoever is ignored.
extension Shell {
    func ignore(_ input: inout CommandInput) async throws {
        let handle = try input.required("@HANDLE")
        try noMoreArguments(input)
        let user = try await service.user(handle: handle)
        let ignored = try await service.ignore(user.id)
        output.result(
            "ignore", ["Ignoring @\(ignored.handle): their messages, mentions, invites and direct messages no longer reach you"],
            json: ignored)
    }

    func unignore(_ input: inout CommandInput) async throws {
        let handle = try input.required("@HANDLE")
        try noMoreArguments(input)
        let user = try await service.user(handle: handle)
        try await service.unignore(user.id)
        output.result("unignore", ["No longer ignoring @\(user.handle)"], json: user.ref)
    }

    func ignores(_ input: inout CommandInput) async throws {
        try noMoreArguments(input)
        let ignored = try await service.ignored()
        output.result(
            "ignores", ignored.isEmpty ? ["You ignore nobody"] : ignored.map { "@\($0.handle)" + ($0.isBot ? " [bot]" : "") }, json: ignored
        )
    }
}
