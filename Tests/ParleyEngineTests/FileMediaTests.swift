import Foundation
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Files of any kind: typed from their bytes, sent with a name, saved byte for byte,
/// and held to their own limit; images and videos sent as files stay what they are.
@Suite(.timeLimit(.minutes(10))) struct FileMediaTests {
    static func pdf(_ pages: Int) -> Data {
        Data(("%PDF-1.7\n" + String(repeating: "1 0 obj << /Type /Page >> endobj\n", count: pages) + "%%EOF\n").utf8)
    }

    @Test(arguments: StoreKind.all) func anyFileIsTypedFromItsBytesAndKeepsItsName(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let group = try await alice.createGroup(handle: "files", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "files")
        var random = SystemRandomNumberGenerator()
        let samples: [(name: String, data: Data, kind: MediaKind, type: String)] = [
            ("q3 report.pdf", Self.pdf(3), .file, "application/pdf"),
            ("notes.txt", Data("line one\nünïcödé ✓\n".utf8), .file, "text/plain"),
            // Sniffed as QuickTime (`free` at offset 4) but not a whole video: a text.
            ("licence.txt", Data("The free software licence.".utf8), .file, "text/plain"),
            ("page.html", Data("<html><script>alert(1)</script></html>".utf8), .file, "text/plain"),
            ("data.bin", Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &random) } + [0]), .file, "application/octet-stream"),
            ("bad-utf8.txt", Data([0x68, 0x69, 0xC0, 0xAF]), .file, "application/octet-stream"),
            ("archive.zip", Data([0x50, 0x4B, 0x03, 0x04] + Array(repeating: 7, count: 40)), .file, "application/zip"),
            ("logs.gz", Data([0x1F, 0x8B, 8, 0] + Array(repeating: 1, count: 40)), .file, "application/gzip"),
            ("x", Data("x".utf8), .file, "text/plain"),
            // Whole images and videos stay images and videos, with their dimensions.
            ("photo.png", SampleMedia.png(width: 6, height: 4) { _, _ in [0, 0, 255, 255] }, .image, "image/png"),
            ("clip.mp4", SampleMedia.mp4(payload: 2000), .video, "video/mp4"),
            // A PNG cut short is a file, not a refusal.
            ("cut.png", SampleMedia.png(width: 6, height: 4) { _, _ in [0, 0, 255, 255] }.prefix(40), .file, "application/octet-stream"),
        ]
        for (index, sample) in samples.enumerated() {
            let url = world.folder.appendingPathComponent("upload-\(index)")
            try sample.data.write(to: url)
            // Announced as a file, or not at all: the bytes decide.
            let media = try await alice.uploadMedia(
                from: url, kind: index.isMultiple(of: 2) ? .file : nil, for: .chat(group.id), progress: nil)
            #expect(media.kind == sample.kind && media.type == sample.type && media.size == Int64(sample.data.count), "\(sample.name)")
            #expect((media.width != nil) == (sample.kind == .image), "\(sample.name)")
            let sent = try await alice.sendMedia(
                to: .chat(group.id), media: media.id, caption: "see \(index)", name: sample.name, clientID: nil, via: nil)
            #expect(sent.kind == MessageKind(carrying: sample.kind) && sent.media?.name == sample.name)
            let saved = world.folder.appendingPathComponent("saved-\(index)")
            try await bob.downloadMedia(media.id, to: saved, replace: false, progress: nil)
            #expect(try Data(contentsOf: saved) == sample.data, "\(sample.name)")
        }
        // The names come back from the store, spaces and all, with each message.
        let history = try await bob.history(chat: group.id, limit: 50, before: nil)
        #expect(history.map { $0.media?.name } == samples.map(\.name))
        #expect(history.map(\.kind) == samples.map { MessageKind(carrying: $0.kind) })
        // The same bytes under another name: one stored file, two names.
        let again = try await alice.uploadMedia(
            from: world.folder.appendingPathComponent("upload-0"), kind: .file, for: .chat(group.id), progress: nil)
        let renamed = try await alice.sendMedia(
            to: .chat(group.id), media: again.id, caption: "", name: "final.pdf", clientID: nil, via: nil)
        #expect(renamed.media?.name == "final.pdf" && history.first?.media?.name == "q3 report.pdf")
        #expect(try await bob.chats().first { $0.chat.id == group.id }?.lastMessage?.media?.name == "final.pdf")
    }

    @Test(arguments: StoreKind.all) func filesHaveTheirOwnLimitAndBadNamesAreRefused(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) {
            $0.mediaLimits = MediaLimits(maxImageBytes: 4096, maxVideoBytes: 65536, maxFileBytes: 2048)
        }
        let alice = try await world.signUp("alice")
        let group = try await alice.createGroup(handle: "files", title: nil, isPublic: true)
        let big = world.folder.appendingPathComponent("big.txt")
        try Data(repeating: 0x61, count: 2049).write(to: big)
        await expectError(.fileTooLarge) { try await alice.uploadMedia(from: big, kind: .file, for: .chat(group.id), progress: nil) }
        await expectError(.fileTooLarge) { try await alice.uploadMedia(from: big, kind: nil, for: .chat(group.id), progress: nil) }
        // Streamed under the video limit, but not a whole video: over the file limit.
        let fake = world.folder.appendingPathComponent("fake.mp4")
        try (Data([0, 0, 0, 8]) + Data("free".utf8) + Data(repeating: 0x61, count: 4000)).write(to: fake)
        await expectError(.fileTooLarge) { try await alice.uploadMedia(from: fake, kind: .file, for: .chat(group.id), progress: nil) }
        // A real video over the file limit but under the video limit is taken as a video.
        let video = world.folder.appendingPathComponent("clip.mp4")
        try SampleMedia.mp4(payload: 10_000).write(to: video)
        #expect(try await alice.uploadMedia(from: video, kind: .file, for: .chat(group.id), progress: nil).kind == .video)
        // An image or video upload still takes only images or videos.
        let text = world.folder.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text)
        await expectError(.unsupportedMedia) { try await alice.uploadMedia(from: text, kind: .image, for: .chat(group.id), progress: nil) }
        let empty = world.folder.appendingPathComponent("empty")
        try Data().write(to: empty)
        await expectError(.emptyFile) { try await alice.uploadMedia(from: empty, kind: .file, for: .chat(group.id), progress: nil) }
        #expect(MediaTests.storedFiles(world).count == 1, "only the video: \(MediaTests.storedFiles(world))")

        let media = try await alice.uploadMedia(from: text, kind: .file, for: .chat(group.id), progress: nil)
        for name in ["a/b.txt", "..", ".", "tab\there", "back\\slash", String(repeating: "é", count: 128), "bell\u{7}"] {
            await expectError(.invalidArgument) {
                try await alice.sendMedia(to: .chat(group.id), media: media.id, caption: "", name: name, clientID: nil, via: nil)
            }
        }
        #expect(try await alice.history(chat: group.id, limit: 10, before: nil).isEmpty, "a refused name sends nothing")
        let trimmed = try await alice.sendMedia(
            to: .chat(group.id), media: media.id, caption: "", name: "  ok.txt ", clientID: nil, via: nil)
        #expect(trimmed.media?.name == "ok.txt" && trimmed.kind == .file)
        let unnamed = try await alice.sendMedia(to: .chat(group.id), media: media.id, caption: "", name: "", clientID: nil, via: nil)
        #expect(unnamed.media?.name == nil)
    }
}
