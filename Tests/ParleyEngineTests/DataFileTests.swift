import Foundation
import ParleyCore
import ParleySQLite
import ParleyStore
import ParleyTesting
import Testing

/// The files a data folder holds: small ones written whole (`AtomicFile.replaceContents`,
/// for the session, outbox, bot credentials and current chat), and the database, which
/// every store locks.
@Suite(.timeLimit(.minutes(10))) struct DataFileTests {
    @Test func aFileIsReplacedWholeAndPrivateAndFailuresAreReported() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-small-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("session")
        try AtomicFile.replaceContents(of: file, with: Data("first\n".utf8))
        try AtomicFile.replaceContents(of: file, with: Data("second, longer\n".utf8))
        #expect(try String(contentsOf: file, encoding: .utf8) == "second, longer\n")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["session"], "no temporary file is left")

        // A folder that is not there, and a folder where the file should be, are errors.
        let missing = folder.appendingPathComponent("gone/session")
        #expect(throws: ParleyError.self) { try AtomicFile.replaceContents(of: missing, with: Data("x".utf8)) }
        let blocked = folder.appendingPathComponent("blocked")
        try FileManager.default.createDirectory(at: blocked.appendingPathComponent("inside"), withIntermediateDirectories: true)
        do {
            try AtomicFile.replaceContents(of: blocked, with: Data("x".utf8))
            Issue.record("a folder was replaced by a file")
        } catch {
            #expect(error.code == .fileError && error.message.contains(blocked.path), "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == ["blocked", "session"])
    }

    /// Library code takes the lock too: a store opened beside a server's is refused,
    /// as the server's beside open shells is, until the other is closed.
    @Test func aDatabaseIsOpenedByOneServerOrByOthersNeverBoth() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-lock-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("parley.sqlite").path
        let served = try SQLiteChatStore(path: path, access: .exclusive)
        served.lock.announce(url: "ws://127.0.0.1:7878/v1/ws")
        do {
            _ = try SQLiteChatStore(path: path)
            Issue.record("a second store opened a served database")
        } catch let error as ParleyError {
            #expect(error.code == .unavailable)
            #expect(
                error.message.contains(
                    "is served by parley serve (pid \(getpid())); connect to it with --server ws://127.0.0.1:7878/v1/ws"), "\(error)")
        }
        try served.close()
        let shells = [try SQLiteChatStore(path: path), try SQLiteChatStore(path: path)]
        #expect(throws: ParleyError.self) { _ = try SQLiteChatStore(path: path, access: .exclusive) }
        for shell in shells { try shell.close() }
        try SQLiteChatStore(path: path, access: .exclusive).close()
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("parley.lock").path))
    }
}
