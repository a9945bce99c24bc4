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

    /// Keeps `entry`; throws when it cannot be kept on disk, and then keeps nothing.
    mutating func add(_ entry: Entry) throws(ParleyError) {
        entries.append(entry)
        do throws(ParleyError) {
            try save()
        } catch {
            entries.removeLast()
            throw ParleyError(.fileError, "cannot keep the message in the outbox: \(error.message)")
        }
    }

    /// Forgets the entry with `clientID`. Should the file keep it (the disk refused
    /// the write), the next start sends it again, which the client id makes harmless.
    mutating func remove(clientID: String?) {
        let before = entries.count
        entries.removeAll { $0.clientID == clientID }
        if entries.count != before { try? save() }
    }

    private func save() throws(ParleyError) {
        guard let url else { return }
        if entries.isEmpty {
            try? FileManager.default.removeItem(at: url)
            return
        }
        guard let data = try? JSONEncoder().encode(entries) else { throw ParleyError(.internalError, "cannot encode the outbox") }
        try AtomicFile.replaceContents(of: url, with: data)
    }
}
