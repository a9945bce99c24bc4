import Foundation
public import ParleyCore
import ParleyStore

/// `WatchService`: presence watches (IRC's MONITOR).
extension EngineSession {
    /// Watches handles, taken or not, at most `Limits.maxPresenceWatches` in all: the
    /// user is told (`presence_changed`, `watched`) when someone under one comes online
    /// or goes. Returns the ones now watched with who is online; a handle that is not
    /// valid is left out, and so are the ones past the limit.
    public func watchPresence(of handles: [String]) async throws -> [WatchedPresence] {
        let user = try requireUser()
        let valid = handles.compactMap { try? Limits.userHandle($0).lowercased() }
        let kept = try await store.watchPresence(of: valid, by: user.id, limit: Limits.maxPresenceWatches)
        return try await presence(of: kept)
    }

    /// Stops watching handles (nil: all of them).
    public func unwatchPresence(of handles: [String]?) async throws {
        let user = try requireUser()
        try await store.unwatchPresence(of: handles?.map { $0.lowercased() }, by: user.id)
    }

    /// The handles the user watches, with who is online.
    public func watchedPresence() async throws -> [WatchedPresence] {
        let user = try requireUser()
        return try await presence(of: try await store.watchedHandles(by: user.id))
    }

    private func presence(of handles: [String]) async throws -> [WatchedPresence] {
        let me = try requireUser()
        var found: [(String, User?)] = []
        for handle in handles { found.append((handle, try await store.user(handle: handle))) }
        var online = await engine.online(among: found.compactMap { $0.1?.id })
        for id in online where try await store.activity(of: id)?.hidden ?? false {
            if await !engine.mayShowOnline(id, to: me.id, hidden: true) { online.remove(id) }
        }
        return found.map { handle, user in
            WatchedPresence(handle: user?.handle ?? handle, user: user?.ref, online: user.map { online.contains($0.id) } ?? false)
        }
    }
}
