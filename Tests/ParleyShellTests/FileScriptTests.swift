import Foundation
import ParleyCore
import Testing

/// `/file` and `/save` through the binary against a server with a 1 MiB file limit: a
/// PDF and a text file go out with their names, are listed, and come back byte for
/// byte; a file over the limit is refused and nothing of it is kept.
@Suite(.timeLimit(.minutes(10))) struct FileScriptTests {
    @Test func filesAreSentListedAndSavedByteForByte() async throws {
        let parley = try await ParleyBinary(mode: .server, serverArguments: ["--max-file-mb", "1"])
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-files-\(UUID().uuidString)")
        defer {
            parley.remove()
            try? FileManager.default.removeItem(at: folder)
        }
        for sub in ["out", "bob"] {
            try FileManager.default.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        let pdf = Data("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n".utf8)
        let notes = Data("shopping:\n- milk\n- ünïcödé ✓\n".utf8)
        try pdf.write(to: folder.appendingPathComponent("q3.pdf"))
        try notes.write(to: folder.appendingPathComponent("my notes.txt"))
        try Data(repeating: 0x42, count: (1 << 20) + 1).write(to: folder.appendingPathComponent("big.bin"))
        let f = folder.path
        let alice = try await parley.run(
            aliceAndBob + """

                /join #swift
                /logout
                /login @alice --password secret-alice
                /file #swift \(f)/q3.pdf the numbers
                /file #swift "\(f)/my notes.txt"
                /file #swift \(f)/big.bin
                /history #swift
                /save #swift 1 \(f)/out/
                /save #swift 2 \(f)/out/
                """, arguments: ["--keep-going"])
        #expect(alice.status == 1, "the file over the limit fails the script")
        #expect(alice.stderr.contains("file_too_large: a file may be at most 1.0 MiB"), "\(alice.stderr)")
        #expect(alice.stderr.components(separatedBy: "error:").count == 2, "one refusal only: \(alice.stderr)")
        let listed = alice.lines.filter { $0.hasPrefix("1. ") || $0.hasPrefix("2. ") }
        #expect(listed.count == 2, "\(alice.stdout)")
        #expect(listed.first?.hasSuffix("#swift <alice> [file q3.pdf PDF \(pdf.count) B] the numbers") == true, "\(listed)")
        #expect(listed.last?.hasSuffix("#swift <alice> [file my notes.txt TXT \(notes.count) B]") == true, "\(listed)")
        #expect(!alice.stdout.contains("big.bin"))
        #expect(try Data(contentsOf: folder.appendingPathComponent("out/q3.pdf")) == pdf)
        #expect(try Data(contentsOf: folder.appendingPathComponent("out/my notes.txt")) == notes)

        // Bob sees both, and saves one under its own name where he runs the shell.
        let bob = try await parley.run(
            "/login @bob --password secret-bob\n/history #swift\n/save #swift 2 \(f)/bob/\n/save #swift 2 \(f)/bob/")
        #expect(bob.stdout.contains("[file q3.pdf PDF") && bob.stdout.contains("[file my notes.txt TXT"))
        #expect(try Data(contentsOf: folder.appendingPathComponent("bob/my notes.txt")) == notes)
        #expect(bob.stderr.contains("file_exists"), "a second save never overwrites: \(bob.stderr)")

        // Only the two files are kept by the server: none of the refused one, no temporary.
        let media = parley.data.appendingPathComponent("server-data/media")
        let kept = (FileManager.default.enumerator(atPath: media.path)?.allObjects as? [String] ?? []).filter {
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: media.appendingPathComponent($0).path, isDirectory: &isFolder)
                && !isFolder.boolValue
        }
        #expect(kept.count == 2 && kept.allSatisfy { !$0.hasPrefix("tmp/") }, "\(kept)")
    }
}
