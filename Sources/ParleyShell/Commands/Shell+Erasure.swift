import Foundation
import ParleyCore

/// `/delete-account` erases the signed-in account; `/erase @H [REASON]` is an operator's.
extension Shell {
    func deleteAccount(_ input: inout CommandInput) async throws {
        let options = try input.options(values: ["password", "password-env"], flags: ["no-password"])
        guard options.positional.isEmpty else {
            throw ParleyError(.usage, "/delete-account [--password P | --password-env VAR | --no-password]")
        }
        let user = try requireMe()
        // An account made with a phone or an ID token has no password to give.
        let password = options.flags.contains("no-password") ? nil : try await password(options, confirmTwice: false)
        try await service.deleteAccount(password: password)
        SessionFile(folder: settings.dataFolder).remove()
        me = nil
        current = nil
        output.result(
            "delete-account",
            ["Deleted @\(Sanitizer.line(user.handle)): your profile, sessions and files are gone, and the handle is held back for a while"],
            json: ["deleted": user.handle])
    }

    func erase(_ input: inout CommandInput) async throws {
        guard let handle = try input.word() else { throw ParleyError(.usage, "/erase @H [REASON]") }
        let reason = try input.text()
        try await service.eraseAccount(handle: handle, reason: reason.isEmpty ? nil : reason)
        let name = handle.hasPrefix("@") ? String(handle.dropFirst()) : handle
        output.result("erase", ["Erased @\(Sanitizer.line(name))"], json: ["erased": name])
    }
}
