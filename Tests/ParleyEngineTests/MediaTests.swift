import Foundation
import ParleyCore
import ParleyEngine
import ParleyStore
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct MediaTests {
    /// Every stored blob file (temporaries included), relative to the media folder.
    static func storedFiles(_ world: TestWorld) -> [String] {
        let folder = world.folder.appendingPathComponent("media")
        let walker = FileManager.default.enumerator(atPath: folder.path)
        var files: [String] = []
        while let path = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isFolder), !isFolder.boolValue
            {
                files.append(path)
            }
        }
        return files.sorted()
    }

    static func write(_ data: Data, _ name: String, in world: TestWorld) throws -> URL {
        let url = world.folder.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    static func red(_ x: Int, _ y: Int) -> [UInt8] { [255, 0, 0, 255] }

    @Test(arguments: StoreKind.all) func eachKindIsSentReceivedAndDownloadedByteForByte(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let group = try await alice.createGroup(handle: "pics", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "pics")
        let samples: [(String, Data, MediaKind, String, Int?, Int?)] = [
            ("a.png", SampleMedia.png(width: 7, height: 5, pixel: Self.red), .image, "image/png", 7, 5),
            ("a.jpg", SampleMedia.jpeg(width: 33, height: 17) { x, _ in [UInt8(x * 7), 80, 160] }, .image, "image/jpeg", 33, 17),
            ("a.gif", SampleMedia.gif(width: 12, height: 9), .image, "image/gif", 12, 9),
            ("a.webp", SampleMedia.webp(width: 300, height: 200), .image, "image/webp", 300, 200),
            ("a.mp4", SampleMedia.mp4(payload: 5000), .video, "video/mp4", nil, nil),
            ("a.mov", SampleMedia.mp4(payload: 300, quicktime: true), .video, "video/quicktime", nil, nil),
            ("a.webm", SampleMedia.webm(payload: 4000), .video, "video/webm", nil, nil),
        ]
        let recorder = EventRecorder(bob)
        for (name, data, kind, type, width, height) in samples {
            let file = try Self.write(data, name, in: world)
            let media = try await alice.uploadMedia(from: file, kind: kind, for: .chat(group.id), progress: nil)
            #expect(media.kind == kind && media.type == type && media.size == Int64(data.count), "\(name)")
            #expect(media.width == width && media.height == height, "\(name)")
            let message = try await alice.sendMedia(to: .chat(group.id), media: media.id, caption: "look: \(name)", clientID: nil)
            #expect(message.kind == (kind == .image ? .image : .video))
            #expect(message.media == media)
            #expect(message.text == "look: \(name)")

            let saved = world.folder.appendingPathComponent("saved-" + name)
            let written = try await bob.downloadMedia(media.id, to: saved, replace: false, progress: nil)
            #expect(written == Int64(data.count))
            #expect(try Data(contentsOf: saved) == data, "\(name) came back different")
        }
        let received = await recorder.messages(count: samples.count)
        #expect(received.map { $0.media?.type } == samples.map { sample -> String? in sample.3 })
        let history = try await bob.history(chat: group.id, limit: 20, before: nil)
        #expect(history.map(\.media) == received.map(\.media))
        #expect(try await bob.chats().first?.lastMessage?.media?.type == "video/webm")
    }

    @Test(arguments: StoreKind.all) func theSameImageSentTwiceIsStoredOnce(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let png = SampleMedia.png(width: 16, height: 16, pixel: Self.red)
        let first = try await alice.uploadMedia(from: try Self.write(png, "one.png", in: world), kind: .image, for: nil, progress: nil)
        let second = try await bob.uploadMedia(from: try Self.write(png, "two.png", in: world), kind: .image, for: nil, progress: nil)
        #expect(first.id == second.id)
        _ = try await alice.sendMedia(to: .user(try await bob.me().id), media: first.id, caption: "", clientID: nil)
        _ = try await bob.sendMedia(to: .user(try await alice.me().id), media: second.id, caption: "same", clientID: nil)
        #expect(Self.storedFiles(world) == ["\(first.id.prefix(2))/\(first.id)"])
    }

    @Test(arguments: StoreKind.all) func onlyMembersOfAChatWhereItWasSentCanDownload(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let carol = try await world.signUp("carol")
        let group = try await alice.createGroup(handle: "inner", title: nil, isPublic: false)
        try await alice.invite(user: try await bob.me().id, to: group.id)
        let file = try Self.write(SampleMedia.png(width: 4, height: 4, pixel: Self.red), "secret.png", in: world)
        let media = try await alice.uploadMedia(from: file, kind: .image, for: .chat(group.id), progress: nil)
        let out = world.folder.appendingPathComponent("out.png")

        // Uploaded but not sent yet: only the uploader has it.
        await expectError(.unknownMedia) { try await bob.downloadMedia(media.id, to: out, replace: false, progress: nil) }
        _ = try await alice.sendMedia(to: .chat(group.id), media: media.id, caption: "", clientID: nil)
        try await bob.downloadMedia(media.id, to: out, replace: false, progress: nil)
        // Deleting the chat clears it for bob, the media with it; sent again, it is his again.
        try await bob.deleteChat(group.id)
        await expectError(.unknownMedia) { try await bob.downloadMedia(media.id, to: out, replace: true, progress: nil) }
        _ = try await alice.sendMedia(to: .chat(group.id), media: media.id, caption: "again", clientID: nil)
        try await bob.downloadMedia(media.id, to: out, replace: true, progress: nil)
        await expectError(.unknownMedia) { try await carol.downloadMedia(media.id, to: out, replace: true, progress: nil) }
        // Knowing the id is not enough to send it on either.
        await expectError(.unknownMedia) {
            try await carol.sendMedia(to: .user(try await alice.me().id), media: media.id, caption: "", clientID: nil)
        }
        #expect(!FileManager.default.fileExists(atPath: world.folder.appendingPathComponent("never").path))

        // An avatar is for everyone to see.
        let face = try await carol.uploadMedia(
            from: try Self.write(SampleMedia.png(width: 2, height: 2, pixel: Self.red), "face.png", in: world), kind: .image, for: nil,
            progress: nil)
        #expect(try await carol.setAvatar(face.id).avatar == face.id)
        try await bob.downloadMedia(face.id, to: world.folder.appendingPathComponent("face-copy.png"), replace: false, progress: nil)
        #expect(try await bob.members(chat: group.id).allSatisfy { $0.avatar == nil })
        #expect(try await alice.user(handle: "carol").avatar == face.id)
    }

    @Test(arguments: StoreKind.all) func badFilesAreRefusedWithTheirCodeAndNothingIsStored(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind) { $0.mediaLimits = MediaLimits(maxImageBytes: 4096, maxVideoBytes: 8192) }
        let alice = try await world.signUp("alice")
        let bob = try await world.signUp("bob")
        let group = try await alice.createGroup(handle: "strict", title: nil, isPublic: true)
        let png = SampleMedia.png(width: 8, height: 8, pixel: Self.red)
        let jpeg = SampleMedia.jpeg(width: 16, height: 16) { _, _ in [1, 2, 3] }
        let cases: [(ErrorCode, Data?, String, MediaKind?)] = [
            (.fileTooLarge, SampleMedia.png(width: 64, height: 64, pixel: Self.red), "big.png", .image),
            (.fileTooLarge, SampleMedia.mp4(payload: 9000), "big.mp4", .video),
            // No kind announced: once the bytes say PNG, the image limit applies.
            (.fileTooLarge, SampleMedia.png(width: 32, height: 32, pixel: Self.red), "sneaky.png", nil),
            (.truncatedMedia, png.prefix(png.count - 20), "cut.png", .image),
            (.truncatedMedia, jpeg.prefix(jpeg.count / 2), "cut.jpg", .image),
            (.truncatedMedia, SampleMedia.mp4(payload: 400).prefix(300), "cut.mp4", .video),
            (.truncatedMedia, SampleMedia.webm(payload: 400).prefix(200), "cut.webm", .video),
            (.mediaMismatch, png, "photo.mp4", .video),
            (.mediaMismatch, SampleMedia.mp4(payload: 10), "clip.png", .image),
            (.unsupportedMedia, Data("just some text, honestly".utf8), "notes.png", .image),
            (.unsupportedMedia, Data([0x89, 0x50, 0x4E]), "tiny.png", .image),
            (.emptyFile, Data(), "empty.png", .image),
            (.fileNotFound, nil, "missing.png", .image),
        ]
        for (code, data, name, kind) in cases {
            let url = world.folder.appendingPathComponent(name)
            if let data { try data.write(to: url) }
            await expectError(code) { try await alice.uploadMedia(from: url, kind: kind, for: .chat(group.id), progress: nil) }
        }
        await expectError(.notAFile) { try await alice.uploadMedia(from: world.folder, kind: .image, for: nil, progress: nil) }
        // A chat the uploader cannot send to is refused before the bytes are read.
        let other = try await bob.createGroup(handle: "bobs", title: nil, isPublic: false)
        let good = try Self.write(png, "good.png", in: world)
        await expectError(.unknownChat) { try await alice.uploadMedia(from: good, kind: .image, for: .chat(other.id), progress: nil) }
        await expectError(.unknownMedia) {
            try await alice.sendMedia(to: .chat(group.id), media: String(repeating: "ab", count: 32), caption: "", clientID: nil)
        }
        #expect(Self.storedFiles(world) == [])
        #expect(try await alice.history(chat: group.id, limit: 10, before: nil).isEmpty)
    }

    @Test(arguments: StoreKind.all) func anUploadCutOffOrNeverSentLeavesNoFile(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let user = try await alice.me()
        // The client goes away half way: the upload is dropped unfinished.
        do {
            let upload = try await world.engine.beginUpload(by: user, expecting: .video, for: nil)
            let data = SampleMedia.mp4(payload: 100_000)
            try data.prefix(50_000).withUnsafeBytes { try upload.append($0) }
            #expect(Self.storedFiles(world).count == 1 && Self.storedFiles(world)[0].hasPrefix("tmp/"))
        }
        #expect(Self.storedFiles(world) == [])

        // A process killed mid-upload leaves a temporary file: the next start clears it.
        let stray = world.folder.appendingPathComponent("media/tmp/\(AtomicFile.temporaryPrefix)crashed")
        try Data(repeating: 1, count: 1000).write(to: stray)
        _ = try FileBlobStore(folder: world.folder.appendingPathComponent("media"))
        #expect(Self.storedFiles(world) == [])
        // Servers sharing the folder clear their own, and another's only a day old: a
        // younger one may be an upload in progress there.
        let media = world.folder.appendingPathComponent("media")
        let node = try FileBlobStore(folder: media, owner: "node-b")
        let own = media.appendingPathComponent("tmp/node-b/\(AtomicFile.temporaryPrefix)crashed")
        let old = media.appendingPathComponent("tmp/node-a/\(AtomicFile.temporaryPrefix)crashed")
        let young = media.appendingPathComponent("tmp/node-a/\(AtomicFile.temporaryPrefix)uploading")
        try FileManager.default.createDirectory(at: old.deletingLastPathComponent(), withIntermediateDirectories: true)
        for file in [own, old, young] { try Data(repeating: 2, count: 1000).write(to: file) }
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-25 * 3600)], ofItemAtPath: old.path)
        _ = try FileBlobStore(folder: media, owner: "node-b")
        #expect(Self.storedFiles(world) == ["tmp/node-a/\(AtomicFile.temporaryPrefix)uploading"])
        #expect(try node.makeTemporary().temporaryURL.path.contains("/tmp/node-b/"))
        try FileManager.default.removeItem(at: media.appendingPathComponent("tmp/node-a"))
        try FileManager.default.removeItem(at: media.appendingPathComponent("tmp/node-b"))

        // A finished upload that no message took up goes once the grace period is over;
        // one that was sent stays.
        let unsent = try await alice.uploadMedia(
            from: try Self.write(SampleMedia.gif(width: 3, height: 3), "unsent.gif", in: world), kind: .image, for: nil, progress: nil)
        let sent = try await alice.uploadMedia(
            from: try Self.write(SampleMedia.png(width: 3, height: 3, pixel: Self.red), "sent.png", in: world), kind: .image, for: nil,
            progress: nil)
        let group = try await alice.createGroup(handle: "keep", title: nil, isPublic: true)
        _ = try await alice.sendMedia(to: .chat(group.id), media: sent.id, caption: "", clientID: nil)
        #expect(try await world.engine.sweepMedia() == 0)
        world.clock.advance(by: .seconds(25 * 3600))
        #expect(try await world.engine.sweepMedia() == 1)
        #expect(Self.storedFiles(world) == ["\(sent.id.prefix(2))/\(sent.id)"])
        await expectError(.unknownMedia) {
            try await alice.sendMedia(to: .chat(group.id), media: unsent.id, caption: "", clientID: nil)
        }
    }

    @Test(arguments: StoreKind.all) func aDownloadNeverOverwritesUnlessAsked(_ kind: StoreKind) async throws {
        let world = try await TestWorld(on: kind)
        let alice = try await world.signUp("alice")
        let media = try await alice.uploadMedia(
            from: try Self.write(SampleMedia.png(width: 3, height: 3, pixel: Self.red), "p.png", in: world), kind: .image, for: nil,
            progress: nil)
        let target = try Self.write(Data("mine".utf8), "exists.png", in: world)
        await expectError(.fileExists) { try await alice.downloadMedia(media.id, to: target, replace: false, progress: nil) }
        #expect(try Data(contentsOf: target) == Data("mine".utf8))
        try await alice.downloadMedia(media.id, to: target, replace: true, progress: nil)
        #expect(try Data(contentsOf: target).count == Int(media.size))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: world.folder.path).filter {
            $0.hasPrefix(AtomicFile.temporaryPrefix)
        }
        #expect(leftovers.isEmpty)
    }
}
