public import Foundation
import ParleyCore

/// The saved session token in the data folder (mode 0600), so the next start signs
/// back in without a password.
struct SessionFile {
    let folder: URL

    private var url: URL { folder.appendingPathComponent("session") }

    func load() -> String? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    func save(_ token: String) throws(ParleyError) {
        try AtomicFile.replaceContents(of: url, with: Data((token + "\n").utf8))
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

extension Shell {
    /// Where a client of the server at `socketURL` keeps its session and outbox: a
    /// folder per server under the data folder (`servers/HOST_PORT`, mode 0700).
    public static func clientFolder(data: URL, server socketURL: String) throws -> URL {
        guard let parsed = URL(string: socketURL), let host = parsed.host, ["ws", "wss"].contains(parsed.scheme ?? "") else {
            throw ParleyError(.invalidArgument, "not a server address: \(socketURL) (expected ws://HOST:PORT)")
        }
        let defaultPort = parsed.scheme == "wss" ? 443 : 80
        let name = "\(host)_\(parsed.port ?? defaultPort)".map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" ? $0 : "-" }
        let folder = data.appendingPathComponent("servers").appendingPathComponent(String(name))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
    }
}

/// The current chat of an interactive shell (`#group` or `@handle`), by user, so the
/// next start opens in it.
struct CurrentChatFile {
    let folder: URL

    private var url: URL { folder.appendingPathComponent("current-chat") }

    func load() -> (user: UserID, label: String)? {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let words = text.split(separator: " ", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard words.count == 2, let id = Int64(words[0]), words[1].hasPrefix("#") || words[1].hasPrefix("@") else { return nil }
        return (UserID(id), words[1])
    }

    func save(_ label: String?, for user: User?) throws(ParleyError) {
        guard let user, let label else {
            try? FileManager.default.removeItem(at: url)
            return
        }
        try AtomicFile.replaceContents(of: url, with: Data("\(user.id.rawValue) \(label)\n".utf8))
    }
}
