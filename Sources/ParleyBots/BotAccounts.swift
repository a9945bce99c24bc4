import Foundation
import ParleyCore

/// Bot accounts a data folder holds the keys of: `bots/HANDLE.json` (mode 0600) keeps
/// the handle, a generated password and the latest token. The first use of a handle
/// makes the account through the signed-in user, who then owns it.
struct BotAccounts {
    let folder: URL

    private struct Credentials: Codable {
        /// How the bot signs in: `@handle` (or, for accounts made before bots had
        /// owners, their generated email address).
        var login: String
        var password: String
        var token: String?

        private enum CodingKeys: String, CodingKey {
            case login = "email", password, token
        }
    }

    /// Signs `service` in as the bot `handle`, making the account through `owner` on
    /// first use.
    func signIn(_ service: any ChatService, handle rawHandle: String, owner: () async throws -> (any ChatService)?) async throws -> SignedIn
    {
        let handle = try Limits.userHandle(rawHandle)
        let file = folder.appendingPathComponent("\(handle).json")
        if let credentials = load(file) {
            if let token = credentials.token, let signedIn = try? await service.resume(token: token) { return signedIn }
            return try await signIn(service, with: credentials, keepingIn: file)
        }
        let noOwner = ParleyError(
            .notSignedIn, "a bot account belongs to the person who makes it: sign in here first, then use --as @\(handle)")
        guard let owner = try await owner() else { throw noOwner }
        let password = (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 36) }.joined()
        let credentials = Credentials(login: "@" + handle, password: String(password.prefix(Limits.maxPasswordBytes)), token: nil)
        do {
            _ = try await owner.createBot(NewBot(handle: handle, password: credentials.password))
        } catch let error as ParleyError where error.code == .handleTaken {
            throw ParleyError(error.code, "@\(handle) is taken by an account this data folder has no credentials for; choose another --as")
        } catch let error as ParleyError where error.code == .notSignedIn {
            throw noOwner
        }
        // Saved before the first sign-in, so a failure there leaves the keys behind.
        try save(credentials, to: file)
        return try await signIn(service, with: credentials, keepingIn: file)
    }

    /// Signs in with the password and keeps the new token beside it.
    private func signIn(_ service: any ChatService, with credentials: Credentials, keepingIn file: URL) async throws -> SignedIn {
        var credentials = credentials
        let signedIn = try await service.signIn(login: credentials.login, password: credentials.password)
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
        try AtomicFile.replaceContents(of: file, with: try JSONEncoder().encode(credentials))
    }
}
