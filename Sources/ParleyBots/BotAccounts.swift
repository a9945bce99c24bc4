import Foundation
import ParleyCore

/// Bot accounts a data folder owns: `bots/HANDLE.json` (mode 0600) keeps the address,
/// a generated password and the latest token. The first use of a handle registers the
/// account, marked as a bot.
struct BotAccounts {
    let folder: URL

    private struct Credentials: Codable {
        var email: String
        var password: String
        var token: String?
    }

    /// Signs `service` in as the bot `handle`, creating the account on first use.
    func signIn(_ service: any ChatService, handle rawHandle: String) async throws -> SignedIn {
        let handle = try Limits.userHandle(rawHandle)
        let file = folder.appendingPathComponent("\(handle).json")
        if var credentials = load(file) {
            if let token = credentials.token, let signedIn = try? await service.resume(token: token) { return signedIn }
            let signedIn = try await service.signIn(login: credentials.email, password: credentials.password)
            credentials.token = signedIn.token
            try save(credentials, to: file)
            return signedIn
        }
        let password = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 36) }.joined()
        var credentials = Credentials(email: "\(handle)@bots.parley.invalid", password: String(password.prefix(64)), token: nil)
        let signedIn: SignedIn
        do {
            signedIn = try await service.register(
                Registration(email: credentials.email, password: credentials.password, displayName: handle, handle: handle, isBot: true))
        } catch let error as ParleyError where error.code == .handleTaken || error.code == .emailTaken {
            throw ParleyError(error.code, "@\(handle) is taken by an account this data folder has no credentials for; choose another --as")
        }
        credentials.token = signedIn.token
        try save(credentials, to: file)
        return signedIn
    }

    private func load(_ file: URL) -> Credentials? {
        guard let data = try? Data(contentsOf: file) else { return nil }
        return try? JSONDecoder().decode(Credentials.self, from: data)
    }

    private func save(_ credentials: Credentials, to file: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let data = try JSONEncoder().encode(credentials)
        guard FileManager.default.createFile(atPath: file.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw ParleyError(.internalError, "cannot write \(file.path)")
        }
    }
}
