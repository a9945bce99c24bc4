import Foundation
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

    func save(_ token: String) {
        _ = FileManager.default.createFile(atPath: url.path, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600])
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
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

    func save(_ label: String?, for user: User?) {
        guard let user, let label else {
            try? FileManager.default.removeItem(at: url)
            return
        }
        _ = FileManager.default.createFile(
            atPath: url.path, contents: Data("\(user.id.rawValue) \(label)\n".utf8), attributes: [.posixPermissions: 0o600])
    }
}
