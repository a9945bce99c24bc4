import ParleyBots
import Synchronization

/// What tab completion offers besides command names: handles the shell has seen.
/// Filled in the background, read synchronously from the line editor.
public final class CompletionCache: Sendable {
    private let words = Mutex((users: Set<String>(), groups: Set<String>()))
    /// Commands declared by the shell's bot plugins.
    private let pluginCommands = Mutex<DeclaredCommands?>(nil)

    public init() {}

    func add(users: some Sequence<String>, groups: some Sequence<String>) {
        words.withLock { words in
            words.users.formUnion(users)
            words.groups.formUnion(groups)
        }
    }

    func add(pluginCommands declared: DeclaredCommands) {
        pluginCommands.withLock { $0 = declared }
    }

    /// Candidates for the word being typed: `@han…`, `#gro…` or `/comm…`.
    public func candidates(for prefix: String, atLineStart: Bool) -> [String] {
        if prefix.hasPrefix("/") && atLineStart {
            let plugins = pluginCommands.withLock { $0?.all.map(\.command.name) ?? [] }
            return Set(CommandTable.allNames + plugins).map { "/" + $0 }.filter { $0.hasPrefix(prefix) }.sorted()
        }
        let (users, groups) = words.withLock { ($0.users, $0.groups) }
        if prefix.hasPrefix("@") { return users.map { "@" + $0 }.filter { $0.hasPrefix(prefix) }.sorted() }
        if prefix.hasPrefix("#") { return groups.map { "#" + $0 }.filter { $0.hasPrefix(prefix) }.sorted() }
        return []
    }
}
