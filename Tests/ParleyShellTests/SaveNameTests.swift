import Foundation
import ParleyCore
import ParleyTesting
import Testing

/// A file's name is a name, never a path: `/save` without a path writes into the current
/// folder, cleaned, whatever the name says (`~`, `~root`, `.bashrc`, a right-to-left
/// override), and a name is cleaned the same way when the file is sent.
@Suite(.timeLimit(.minutes(10))) struct SaveNameTests {
    static let hostile = ["~", "~root", ".bashrc", "\u{202E}txt.exe", "CON", "a\u{200B}b.txt"]

    @Test func savedFilesLandInTheFolderUnderCleanedNames() async throws {
        let parley = try await ParleyBinary()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-save-\(UUID().uuidString)")
        let (sources, here, home) = (
            root.appendingPathComponent("sources"), root.appendingPathComponent("here"), root.appendingPathComponent("home")
        )
        defer {
            parley.remove()
            try? FileManager.default.removeItem(at: root)
        }
        for folder in [sources, here, home] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        // What was sent under each name is stored cleaned (a "~" alone is refused).
        var script = "/register alice@example.com --handle alice --name Alice --password secret-alice\n/create #files\n"
        for (index, name) in Self.hostile.enumerated() {
            let file = sources.appendingPathComponent(name)
            try Data("file \(index)\n".utf8).write(to: file)
            script += "/file #files \"\(file.path)\"\n"
        }
        let sent = try await parley.run(script, arguments: ["--keep-going"], environment: ["HOME": home.path], directory: here)
        #expect(sent.stderr.contains("invalid_argument"), "a name that is all ~ is refused: \(sent.stderr)")
        let history = try await parley.run("/history #files", environment: ["HOME": home.path], directory: here)
        for shown in ["[file root ", "[file bashrc ", "[file txt.exe ", "[file _CON ", "[file ab.txt "] {
            #expect(history.stdout.contains(shown), "\(shown): \(history.stdout)")
        }
        #expect(!history.stdout.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\u{200B}" })

        // An older server kept names as they came: saved here, each is cleaned again.
        try await Self.setRawNames(Array(Self.hostile.prefix(5)), in: parley.data.appendingPathComponent("parley.sqlite"))
        let saves = (1...5).map { "/save #files \($0)" }.joined(separator: "\n")
        let saved = try await parley.run(saves, environment: ["HOME": home.path], directory: here)
        #expect(saved.status == 0, "\(saved.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: here.path).sorted()
        #expect(names == ["_CON", "bashrc", "files-1.txt", "root", "txt.exe"], "\(names)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path).isEmpty, "nothing lands in the home folder")
        #expect(saved.stdout.contains("to \(here.path)/root"), "the folder is stated: \(saved.stdout)")
    }

    /// Sets the names of messages 1… in the database as an older server kept them.
    static func setRawNames(_ names: [String], in database: URL) async throws {
        let program = """
            import sqlite3, sys, json
            names = json.loads(sys.argv[2])
            db = sqlite3.connect(sys.argv[1])
            rows = db.execute("SELECT id, media FROM message WHERE media IS NOT NULL ORDER BY seq").fetchall()
            for (id, media), name in zip(rows, names):
                fields = media.split(" ")[:5]
                db.execute("UPDATE message SET media = ? WHERE id = ?", (" ".join(fields + [name]), id))
            db.commit()
            """
        let encoded = String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
        let process = try ChildProcess("/usr/bin/env", ["python3", "-c", program, database.path, encoded])
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
