import Dispatch
import ParleyBots
import Synchronization

/// What tab completion offers besides command names and paths: handles and groups the
/// shell has seen, and, as they are typed, the server's directory of people and public
/// groups (the searches `/users` and `/list` make). Filled in the background, read
/// synchronously from the line editor's thread.
public final class CompletionCache: Sendable {
    private let words = Mutex((users: Set<String>(), groups: Set<String>()))
    /// Commands declared by the shell's bot plugins.
    private let pluginCommands = Mutex<DeclaredCommands?>(nil)

    /// Looks up handles (`@`) or public groups (`#`) that start with a prefix.
    public typealias Directory = @Sendable (_ sigil: Character, _ prefix: String) async -> [String]
    private let directory = Mutex<Directory?>(nil)
    private struct Lookups {
        /// Prefixes already asked for, with their sigil (at most `maxRemembered`).
        var asked: Set<String> = []
        var last: ContinuousClock.Instant?
    }
    private let lookups = Mutex(Lookups())
    /// One directory lookup at most this often, and what a Tab waits for one at most.
    static let lookupInterval = Duration.milliseconds(250)
    static let patience = DispatchTimeInterval.milliseconds(700)
    private static let maxRemembered = 512

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

    /// Where handles and groups not yet seen are looked up as they are typed.
    func setDirectory(_ lookup: @escaping Directory) {
        directory.withLock { $0 = lookup }
    }

    /// Candidates for the word being typed: `@han…`, `#gro…` or, first on the line,
    /// `/comm…`. Anything else is left to the line editor (file names).
    public func candidates(for prefix: String, atLineStart: Bool) -> [String] {
        if prefix.hasPrefix("/") && atLineStart {
            let plugins = pluginCommands.withLock { $0?.all.map(\.command.name) ?? [] }
            return Set(CommandTable.allNames + plugins).map { "/" + $0 }.filter { $0.hasPrefix(prefix) }.sorted()
        }
        guard let sigil = prefix.first, sigil == "@" || sigil == "#" else { return [] }
        lookUp(sigil, String(prefix.dropFirst()))
        let (users, groups) = words.withLock { ($0.users, $0.groups) }
        let known = sigil == "@" ? users : groups
        return known.map { String(sigil) + $0 }.filter { $0.lowercased().hasPrefix(prefix.lowercased()) }.sorted()
    }

    /// Asks the directory once per prefix, at most one lookup a `lookupInterval`, and
    /// waits for the answer at most `patience` (a slow server leaves the cache as it is).
    private func lookUp(_ sigil: Character, _ prefix: String) {
        guard let directory = directory.withLock({ $0 }), prefix.count <= 32 else { return }
        let key = String(sigil) + prefix.lowercased()
        let now = ContinuousClock.now
        let due: Bool = lookups.withLock { lookups in
            if lookups.asked.contains(key) { return false }
            if let last = lookups.last, now - last < Self.lookupInterval { return false }
            if lookups.asked.count >= Self.maxRemembered { lookups.asked.removeAll() }
            lookups.asked.insert(key)
            lookups.last = now
            return true
        }
        guard due else { return }
        let answered = DispatchSemaphore(value: 0)
        Task {
            let found = await directory(sigil, prefix)
            if sigil == "@" { add(users: found, groups: []) } else { add(users: [], groups: found) }
            answered.signal()
        }
        _ = answered.wait(timeout: .now() + Self.patience)
    }
}
