public import Foundation
import ParleyCore
public import ParleyEngine
import ParleySQLite
public import ParleyStore
import Synchronization

/// An engine on a fresh store (a SQLite file in a temporary folder, or a new database on
/// the tests' PostgreSQL), with a clock tests can move and cheap bcrypt, so every test
/// reads the same way on both:
///
/// ```swift
/// @Test(arguments: StoreKind.all) func something(_ kind: StoreKind) async throws {
///     let world = try await TestWorld(on: kind)
///     let alice = try await world.signUp("alice")
/// ```
public final class TestWorld: Sendable {
    public let folder: URL
    public let store: any ChatStore
    public let engine: ChatEngine
    public let blobs: FileBlobStore
    public let clock: TestClock
    private let postgres: RunningPostgresStore?

    /// A world on SQLite.
    /// - Parameter configure: changes to the engine's configuration (bcrypt cost 4, the
    ///   test clock) before the engine starts.
    public convenience init(_ configure: (inout ChatEngine.Configuration) -> Void = { _ in }) throws {
        let folder = try Self.makeFolder()
        let store = try SQLiteChatStore(path: folder.appendingPathComponent("parley.sqlite").path)
        try self.init(folder: folder, store: store, postgres: nil, configure)
    }

    /// A world on the given store.
    public convenience init(on kind: StoreKind, _ configure: (inout ChatEngine.Configuration) -> Void = { _ in }) async throws {
        switch kind {
        case .sqlite:
            try self.init(configure)
        case .postgres:
            let running = try await TestPostgres.store()
            try self.init(folder: try Self.makeFolder(), store: running.store, postgres: running, configure)
        }
    }

    /// A new folder of its own under the temporary directory; the caller removes it.
    public static func makeFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    private init(
        folder: URL, store: any ChatStore, postgres: RunningPostgresStore?, _ configure: (inout ChatEngine.Configuration) -> Void
    ) throws {
        self.folder = folder
        self.store = store
        self.postgres = postgres
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

    /// `name` signed in to a new engine (bcrypt cost 4) on `store`, as a process that
    /// opened the same database again would sign in.
    public static func signIn(_ name: String, on store: any ChatStore) async throws -> EngineSession {
        var configuration = ChatEngine.Configuration()
        configuration.bcryptCost = 4
        let session = ChatEngine(store: store, configuration: configuration).connect()
        _ = try await session.signIn(login: "@\(name)", password: password(of: name))
        return session
    }
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
