public import ParleyCore

/// Presence watches (IRC's MONITOR), kept by lowercased handle, whether or not the
/// handle is taken: part of every `ChatStore`.
public protocol WatchStore: Sendable {
    /// Adds handles to a user's watch list, up to `limit` in all; returns the ones added
    /// or already there, in the order given (the rest did not fit).
    func watchPresence(of handles: [String], by watcher: UserID, limit: Int) async throws -> [String]
    /// Takes handles off a user's watch list (all of them for nil).
    func unwatchPresence(of handles: [String]?, by watcher: UserID) async throws
    /// The handles a user watches, in order.
    func watchedHandles(by watcher: UserID) async throws -> [String]
    /// Who watches a handle.
    func presenceWatchers(of handle: String) async throws -> [UserID]
}
