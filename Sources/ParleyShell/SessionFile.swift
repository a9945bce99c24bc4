import Foundation

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
