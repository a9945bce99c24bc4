import Foundation
import ParleyClient
import ParleyCore
import ParleyEngine
import ParleyTesting
import Testing

/// Media through a real server on a free port: uploads and downloads over HTTP, sends
/// over the WebSocket.
@Suite(.timeLimit(.minutes(10))) struct MediaServerTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-media-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Every file under the server's media folder, temporaries included.
    static func storedFiles(_ server: TestServer) -> [String] {
        let walker = FileManager.default.enumerator(atPath: server.mediaFolder.path)
        var files: [String] = []
        while let path = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: server.mediaFolder.appendingPathComponent(path).path, isDirectory: &isFolder),
                !isFolder.boolValue
            {
                files.append(path)
            }
        }
        return files.sorted()
    }

    static func red(_ x: Int, _ y: Int) -> [UInt8] { [200, UInt8(truncatingIfNeeded: x * 20), UInt8(truncatingIfNeeded: y * 20), 255] }

    @Test func eachKindGoesThroughTheServerAndComesBackIdentical() async throws {
        let server = try await TestServer.start()
        let files = try Self.folder()
        defer { try? FileManager.default.removeItem(at: files) }
        let (alice, _, _) = try await client(server, "alice")
        let (bob, bobLog, _) = try await client(server, "bob")
        let group = try await alice.createGroup(handle: "media", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "media")
        let samples: [(String, Data, MediaKind)] = [
            ("p.png", SampleMedia.png(width: 10, height: 6, pixel: Self.red), .image),
            ("p.jpg", SampleMedia.jpeg(width: 40, height: 30) { x, y in [UInt8(x), UInt8(y), 99] }, .image),
            ("p.gif", SampleMedia.gif(width: 5, height: 5), .image),
            ("p.webp", SampleMedia.webp(width: 64, height: 48), .image),
            ("v.mp4", SampleMedia.mp4(payload: 700_000), .video),
            ("v.mov", SampleMedia.mp4(payload: 1000, quicktime: true), .video),
            ("v.webm", SampleMedia.webm(payload: 3000), .video),
        ]
        for (name, data, kind) in samples {
            let file = files.appendingPathComponent(name)
            try data.write(to: file)
            let media = try await alice.uploadMedia(from: file, kind: kind, for: .chat(group.id), progress: nil)
            #expect(media.size == Int64(data.count) && media.kind == kind)
            let sent = try await alice.sendMedia(to: .chat(group.id), media: media.id, caption: name, clientID: nil)
            #expect(await bobLog.wait { _ in bobLog.messages.contains { $0.id == sent.id && $0.media == media } })
            let copy = files.appendingPathComponent("copy-" + name)
            try await bob.downloadMedia(media.id, to: copy, replace: false, progress: nil)
            #expect(try Data(contentsOf: copy) == data, "\(name)")
        }
        let history = try await bob.history(chat: group.id, limit: 20, before: nil)
        #expect(history.map(\.text) == samples.map(\.0))
        #expect(history.map(\.kind) == samples.map { $0.2 == .image ? MessageKind.image : .video })
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test func theSameImageUploadedTwiceIsStoredOnce() async throws {
        let server = try await TestServer.start()
        let files = try Self.folder()
        defer { try? FileManager.default.removeItem(at: files) }
        let (alice, _, _) = try await client(server, "alice")
        let (bob, _, bobIn) = try await client(server, "bob")
        let file = files.appendingPathComponent("same.png")
        try SampleMedia.png(width: 20, height: 20, pixel: Self.red).write(to: file)
        let first = try await alice.uploadMedia(from: file, kind: .image, for: .user(bobIn.user.id), progress: nil)
        let second = try await bob.uploadMedia(from: file, kind: .image, for: nil, progress: nil)
        _ = try await alice.sendMedia(to: .user(bobIn.user.id), media: first.id, caption: "", clientID: nil)
        _ = try await alice.sendMedia(to: .user(bobIn.user.id), media: first.id, caption: "again", clientID: nil)
        #expect(first.id == second.id)
        #expect(Self.storedFiles(server) == ["\(first.id.prefix(2))/\(first.id)"])
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test func downloadsAreForMembersAndServeRanges() async throws {
        let server = try await TestServer.start()
        let files = try Self.folder()
        defer { try? FileManager.default.removeItem(at: files) }
        let (alice, _, aliceIn) = try await client(server, "alice")
        let (carol, _, carolIn) = try await client(server, "carol")
        let group = try await alice.createGroup(handle: "closed", title: nil, isPublic: false)
        let video = SampleMedia.mp4(payload: 50_000)
        let file = files.appendingPathComponent("clip.mp4")
        try video.write(to: file)
        let media = try await alice.uploadMedia(from: file, kind: .video, for: .chat(group.id), progress: nil)
        _ = try await alice.sendMedia(to: .chat(group.id), media: media.id, caption: "clip", clientID: nil)

        await expectError(.unknownMedia) {
            try await carol.downloadMedia(media.id, to: files.appendingPathComponent("stolen.mp4"), replace: false, progress: nil)
        }
        #expect(!FileManager.default.fileExists(atPath: files.appendingPathComponent("stolen.mp4").path))
        let path = "/v1/media/\(media.id)"
        let anonymous = try await RawHTTP.request(port: server.port, method: "GET", path: path)
        #expect(anonymous.status == 401 && anonymous.text.contains("not_signed_in"))
        let stranger = try await RawHTTP.request(
            port: server.port, method: "GET", path: path, headers: ["Authorization": "Bearer \(carolIn.token)"])
        #expect(stranger.status == 404 && stranger.text.contains("unknown_media"))

        let owner = ["Authorization": "Bearer \(aliceIn.token)"]
        let whole = try await RawHTTP.request(port: server.port, method: "GET", path: path, headers: owner)
        #expect(whole.status == 200 && whole.body == Array(video) && whole.headers["accept-ranges"] == "bytes")
        #expect(whole.headers["content-type"] == "video/mp4")
        let middle = try await RawHTTP.request(
            port: server.port, method: "GET", path: path, headers: owner.merging(["Range": "bytes=100-199"]) { $1 })
        #expect(middle.status == 206 && middle.body == Array(video[100...199]))
        #expect(middle.headers["content-range"] == "bytes 100-199/\(video.count)")
        let tail = try await RawHTTP.request(
            port: server.port, method: "GET", path: path, headers: owner.merging(["Range": "bytes=-10"]) { $1 })
        #expect(tail.status == 206 && tail.body == Array(video.suffix(10)))
        let open = try await RawHTTP.request(
            port: server.port, method: "GET", path: path, headers: owner.merging(["Range": "bytes=50000-"]) { $1 })
        #expect(open.status == 206 && open.body == Array(video[50000...]))
        let beyond = try await RawHTTP.request(
            port: server.port, method: "GET", path: path, headers: owner.merging(["Range": "bytes=\(video.count)-"]) { $1 })
        #expect(beyond.status == 416 && beyond.headers["content-range"] == "bytes */\(video.count)")
        _ = aliceIn
        await alice.close()
        await carol.close()
        await server.stop()
    }

    @Test func badUploadsAreRefusedWithTheirCodeAndLeaveNothing() async throws {
        let server = try await TestServer.start(engine: { $0.mediaLimits = MediaLimits(maxImageBytes: 64 << 10, maxVideoBytes: 256 << 10) })
        let files = try Self.folder()
        defer { try? FileManager.default.removeItem(at: files) }
        let (alice, _, aliceIn) = try await client(server, "alice")
        let (bob, _, _) = try await client(server, "bob")
        let group = try await alice.createGroup(handle: "strict", title: nil, isPublic: true)
        let png = SampleMedia.png(width: 30, height: 30, pixel: Self.red)
        let cases: [(ErrorCode, Data, String, MediaKind?)] = [
            (.fileTooLarge, SampleMedia.png(width: 200, height: 200, pixel: Self.red), "big.png", .image),
            (.fileTooLarge, SampleMedia.mp4(payload: 3 << 20), "big.mp4", nil),
            // Under the video limit the announced size passes; the bytes say PNG, and the
            // upload is cut when it passes the image limit.
            (.fileTooLarge, SampleMedia.png(width: 200, height: 200, pixel: Self.red), "sneaky.png", nil),
            (.truncatedMedia, png.prefix(png.count - 7), "cut.png", .image),
            (.truncatedMedia, SampleMedia.jpeg(width: 64, height: 64) { x, _ in [UInt8(x), 0, 0] }.prefix(500), "cut.jpg", .image),
            (.mediaMismatch, png, "fake.mp4", .video),
            (.unsupportedMedia, Data(repeating: 0x41, count: 5000), "text.png", .image),
            (.emptyFile, Data(), "empty.png", .image),
        ]
        for (code, data, name, kind) in cases {
            let file = files.appendingPathComponent(name)
            try data.write(to: file)
            await expectError(code) { try await alice.uploadMedia(from: file, kind: kind, for: .chat(group.id), progress: nil) }
        }
        let bobs = try await bob.createGroup(handle: "bobs", title: nil, isPublic: false)
        let good = files.appendingPathComponent("good.png")
        try png.write(to: good)
        await expectError(.unknownChat) { try await alice.uploadMedia(from: good, kind: .image, for: .chat(bobs.id), progress: nil) }
        // A body larger than announced by a client that lies about its size is cut at the limit too.
        let liar = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media?kind=image", headers: ["Authorization": "Bearer \(aliceIn.token)"],
            body: Array(SampleMedia.png(width: 200, height: 200, pixel: Self.red)))
        #expect(liar.status == 413 && liar.text.contains("file_too_large"))
        let bogus = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media?kind=sound", headers: ["Authorization": "Bearer \(aliceIn.token)"],
            body: Array(png))
        #expect(bogus.status == 400 && bogus.text.contains("invalid_argument"))
        #expect(Self.storedFiles(server) == [])
        #expect(try server.storedMessages() == 0)
        await alice.close()
        await bob.close()
        await server.stop()
    }

    @Test func aClientThatDiesMidUploadLeavesNoHalfFile() async throws {
        let server = try await TestServer.start()
        let (alice, _, aliceIn) = try await client(server, "alice")
        let video = Array(SampleMedia.mp4(payload: 400_000))
        let upload = try RawHTTP.PartialUpload(
            port: server.port, path: "/v1/media?kind=video", token: aliceIn.token, announced: video.count,
            body: Array(video.prefix(200_000)))
        // Half the bytes are in a temporary file, and nowhere else.
        var deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline, Self.storedFiles(server).isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        let during = Self.storedFiles(server)
        #expect(during.count == 1 && during.allSatisfy { $0.hasPrefix("tmp/") }, "\(during)")
        upload.hangUp()
        // The server notices the closed connection and drops the temporary file.
        deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline, !Self.storedFiles(server).isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        #expect(Self.storedFiles(server) == [])
        await alice.close()
        await server.stop()
    }

    @Test func anAvatarIsVisibleToEveryoneSignedIn() async throws {
        let server = try await TestServer.start()
        let files = try Self.folder()
        defer { try? FileManager.default.removeItem(at: files) }
        let (alice, _, _) = try await client(server, "alice")
        let (bob, _, _) = try await client(server, "bob")
        let face = files.appendingPathComponent("face.jpg")
        try SampleMedia.jpeg(width: 48, height: 48) { x, y in [UInt8(x * 5), UInt8(y * 5), 128] }.write(to: face)
        let media = try await alice.uploadMedia(from: face, kind: .image, for: nil, progress: nil)
        #expect(try await alice.setAvatar(media.id).avatar == media.id)
        #expect(try await bob.user(handle: "alice").avatar == media.id)
        try await bob.downloadMedia(media.id, to: files.appendingPathComponent("alice.jpg"), replace: false, progress: nil)
        #expect(try Data(contentsOf: files.appendingPathComponent("alice.jpg")) == Data(contentsOf: face))
        let clip = files.appendingPathComponent("clip.mp4")
        try SampleMedia.mp4(payload: 100).write(to: clip)
        let video = try await alice.uploadMedia(from: clip, kind: .video, for: nil, progress: nil)
        await expectError(.mediaMismatch) { try await alice.setAvatar(video.id) }
        await alice.close()
        await bob.close()
        await server.stop()
    }
}
