import Foundation
import ParleyCore
import ParleyProtocol

/// Sends not yet acknowledged by the server, kept in a file (mode 0600) so they survive
/// a lost connection and a restart of the client. Each keeps its client id, so sending
/// it again can never store it twice. Each entry is the `send` request's arguments.
struct Outbox: Sendable {
    typealias Entry = Args.Send

    let url: URL?
    private(set) var entries: [Entry]

    /// Loads the outbox at `url` (nil: memory only).
    init(url: URL?) {
        self.url = url
        if let url, let data = try? Data(contentsOf: url), let entries = try? JSONDecoder().decode([Entry].self, from: data) {
            self.entries = entries
        } else {
            self.entries = []
        }
    }

    mutating func add(_ entry: Entry) {
        entries.append(entry)
        save()
    }

    mutating func remove(clientID: String?) {
        let before = entries.count
        entries.removeAll { $0.clientID == clientID }
        if entries.count != before { save() }
    }

    private func save() {
        guard let url else { return }
        if entries.isEmpty {
            try? FileManager.default.removeItem(at: url)
            return
        }
        guard let data = try? JSONEncoder().encode(entries) else { return }
        let temporary = url.appendingPathExtension("tmp")
        _ = FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600])
        rename(temporary.path, url.path)
    }
}
