import Foundation
public import ParleyBots
import ParleyCore
import ParleyEngine
import ParleySQLite
import ParleyStore
import ParleyTesting
import Synchronization
import Testing

/// An engine with a bot host on it, alice signed in, and the test plugin
/// (Plugins/testbot.py) at hand. Guards are tightened so crashes and restarts are quick.
final class BotWorld: Sendable {
    let world: TestWorld
    let host: BotHost
    let state: BotStateStore
    let folder: URL
    let alice: EngineSession
    let aliceEvents: EventRecorder
    let aliceUser: User

    static let testBot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Plugins/testbot.py").path
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    init(clock: (any BotClock)? = nil, configure: (inout BotLimits) -> Void = { _ in }) async throws {
        world = try TestWorld()
        folder = world.folder
        alice = world.engine.connect()
        let signedIn = try await alice.register(
            Registration(email: "alice@example.com", password: TestWorld.password(of: "alice"), displayName: "Alice", handle: "alice"))
        aliceUser = signedIn.user
        aliceEvents = EventRecorder(alice)
        state = try BotStateStore(path: world.folder.appendingPathComponent("bots.sqlite").path)
        let engine = world.engine
        let token = signedIn.token
        let notes = Notes()
        var runtime = BotRuntime(
            connect: { _ in engine.connect() }, userToken: { token }, accountsFolder: world.folder.appendingPathComponent("bots"),
            state: state, log: { plugin, line in notes.add("[\(plugin)] \(line)") }, notify: { notes.add($0) })
        var limits = BotLimits()
        limits.restartBackoff = .milliseconds(20)
        limits.helloWait = .milliseconds(300)
        limits.stopGrace = .seconds(1)
        configure(&limits)
        runtime.limits = limits
        if let clock { runtime.clock = clock }
        // Bot accounts are alice's: she makes them on first use of a handle.
        let owner = alice
        runtime.owner = { owner }
        host = BotHost(runtime: runtime)
        self.notes = notes
    }

    let notes: Notes

    final class Notes: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Loads the test plugin in `mode`; returns its info and the file it records host lines in.
    func load(_ mode: String, _ argument: String? = nil, as handle: String?, name: String? = nil) async throws -> (PluginInfo, URL) {
        let record = folder.appendingPathComponent("\(name ?? mode)-\(UUID().uuidString).jsonl")
        let info = try await host.load(
            path: Self.testBot, arguments: [mode, record.path] + (argument.map { [$0] } ?? []), as: handle, name: name ?? mode)
        return (info, record)
    }

    /// The lines a plugin has recorded so far.
    func recorded(_ file: URL) -> [JSONValue] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONValue.parse(Data($0.utf8)) }
    }

    /// A group owned by alice with the given bots in it.
    func group(_ handle: String, bots: [String]) async throws -> Chat {
        let chat = try await alice.createGroup(handle: handle, title: nil, isPublic: true)
        for bot in bots {
            let user = try await alice.user(handle: bot)
            try await alice.invite(user: user.id, to: chat.id)
        }
        return chat
    }

    func messages(in chat: ChatID) async throws -> [Message] {
        try await alice.history(chat: chat, limit: 500, before: nil)
    }

    func shutdown() async {
        await host.shutdown()
        try? state.close()
    }
}

/// Whether a process with this pid is alive (a zombie waiting to be reaped is not).
func processExists(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return false }
    let state = stat[stat.index(close, offsetBy: 2)]
    return state != "Z" && state != "X"
}

/// The tests keep the host's state where the shell does: a `bots.sqlite`.
extension BotStateStore: BotState {}
