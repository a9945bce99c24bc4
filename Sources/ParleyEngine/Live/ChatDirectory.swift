import ParleyCore
import ParleyStore
import Synchronization

/// An in-memory copy of each active chat and its members' roles, so a send or a fan-out
/// never queries members from the database. Every membership change invalidates the
/// chat's entry; a load that raced with a change is not kept. At most `capacity` chats
/// and `capacity` direct-chat pairs are kept; past that, half of them go (they are
/// loaded again when used).
final class ChatDirectory: Sendable {
    struct Entry: Sendable {
        var chat: Chat
        var roles: [UserID: Role]
        /// The members as a list, ready for fan-out.
        var members: [UserID]
    }

    private struct State {
        var entries: [ChatID: Entry] = [:]
        var directChats: [String: ChatID] = [:]
        var generation = 0
    }

    private let store: any ChatStore
    private let state = Mutex(State())
    let capacity: Int

    init(store: any ChatStore, capacity: Int = 50_000) {
        self.store = store
        self.capacity = max(2, capacity)
    }

    var count: Int { state.withLock { $0.entries.count } }

    func entry(_ chat: ChatID) async throws -> Entry? {
        let (cached, generation) = state.withLock { ($0.entries[chat], $0.generation) }
        if let cached { return cached }
        guard let loaded = try await store.chat(id: chat) else { return nil }
        let members = try await store.members(of: chat)
        let entry = Entry(
            chat: loaded, roles: Dictionary(uniqueKeysWithValues: members.map { ($0.user.id, $0.role) }), members: members.map(\.user.id))
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity { Self.halve(&state.entries) }
            state.entries[chat] = entry
        }
        return entry
    }

    func invalidate(_ chat: ChatID) {
        state.withLock { state in
            state.entries[chat] = nil
            state.generation += 1
        }
    }

    /// The direct chat of a pair, remembered once known (a pair's chat never changes).
    func directChat(_ first: UserID, _ second: UserID) -> ChatID? {
        state.withLock { $0.directChats[Self.pairKey(first, second)] }
    }

    func rememberDirectChat(_ chat: ChatID, _ first: UserID, _ second: UserID) {
        state.withLock { state in
            if state.directChats.count >= capacity { Self.halve(&state.directChats) }
            state.directChats[Self.pairKey(first, second)] = chat
        }
    }

    private static func halve<Key, Value>(_ entries: inout [Key: Value]) {
        for key in Array(entries.keys.prefix(entries.count / 2)) { entries[key] = nil }
    }

    private static func pairKey(_ first: UserID, _ second: UserID) -> String {
        "\(min(first, second)):\(max(first, second))"
    }
}
