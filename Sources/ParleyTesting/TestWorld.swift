public import Foundation
import ParleyCore
public import ParleyEngine
public import ParleyStore
import Synchronization

/// An engine on a fresh SQLite file in a temporary folder, with a clock tests can move
/// and cheap bcrypt, so every test reads the same way:
///
/// ```swift
/// let world = try TestWorld()
/// let alice = try await world.signUp("alice")
/// ```
public final class TestWorld: Sendable {
    public let folder: URL
    public let store: SQLiteChatStore
    public let engine: ChatEngine
    public let blobs: FileBlobStore
    public let clock: TestClock

    /// - Parameter configure: changes to the engine's configuration (bcrypt cost 4, the
    ///   test clock) before the engine starts.
    public init(_ configure: (inout ChatEngine.Configuration) -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try SQLiteChatStore(path: folder.appendingPathComponent("parley.sqlite").path)
        let clock = TestClock()
        var configuration = ChatEngine.Configuration()
        configuration.bcryptCost = 4
        configuration.now = { clock.now }
        configure(&configuration)
        self.clock = clock
        blobs = try FileBlobStore(folder: folder.appendingPathComponent("media"))
        engine = ChatEngine(store: store, blobs: blobs, configuration: configuration)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    public var databasePath: String { folder.appendingPathComponent("parley.sqlite").path }

    /// Registers `name@example.com` with handle `name` and password `password-NAME`,
    /// and returns the signed-in connection.
    public func signUp(_ name: String, displayName: String? = nil) async throws -> EngineSession {
        let session = engine.connect()
        _ = try await session.register(
            Registration(
                email: "\(name)@example.com", password: Self.password(of: name), displayName: displayName ?? name.capitalized, handle: name)
        )
        return session
    }

    /// A second connection signed in as an existing user.
    public func signIn(_ name: String) async throws -> EngineSession {
        let session = engine.connect()
        _ = try await session.signIn(login: "@\(name)", password: Self.password(of: name))
        return session
    }

    public static func password(of name: String) -> String { "password-\(name)" }
}

/// A clock that only moves when told to.
public final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))

    public init() {}

    public var now: Date { current.withLock { $0 } }

    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        current.withLock { $0 = $0.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18) }
    }
}
