import Foundation
import ParleyClient
import ParleyCore
import ParleyEngine
import ParleyProtocol
import ParleyTesting
import Testing

/// Files of any kind over the HTTP media API and the WebSocket: sent with their name,
/// served as downloads a browser never renders, held to the file limit.
@Suite(.timeLimit(.minutes(10))) struct FileServerTests {
    @Test func filesGoOverHTTPWithTheirNameAndAreNeverRendered() async throws {
        let server = try await TestServer.start(engine: { $0.mediaLimits = MediaLimits(maxFileBytes: 4096) })
        let files = try MediaServerTests.folder()
        defer { try? FileManager.default.removeItem(at: files) }
        let (alice, _, aliceIn) = try await client(server, "alice")
        let (bob, _, bobIn) = try await client(server, "bob")
        let group = try await alice.createGroup(handle: "docs", title: nil, isPublic: true)
        _ = try await bob.joinGroup(handle: "docs")

        // Through the client: upload as a file, send with a name, read it back by history.
        let pdf = Data("%PDF-1.4\n1 0 obj << >> endobj\n%%EOF\n".utf8)
        let local = files.appendingPathComponent("q3 report.pdf")
        try pdf.write(to: local)
        let media = try await alice.uploadMedia(from: local, kind: .file, for: .chat(group.id), progress: nil)
        #expect(media.kind == .file && media.type == "application/pdf")
        let sent = try await alice.sendMedia(
            to: .chat(group.id), media: media.id, caption: "numbers", name: "q3 report.pdf", clientID: nil, via: nil)
        #expect(sent.kind == .file && sent.media?.name == "q3 report.pdf")
        let seen = try await bob.history(chat: group.id, limit: 5, before: nil).last
        #expect(seen?.media?.name == "q3 report.pdf" && seen?.text == "numbers")
        let saved = files.appendingPathComponent("saved.pdf")
        try await bob.downloadMedia(media.id, to: saved, replace: false, progress: nil)
        #expect(try Data(contentsOf: saved) == pdf)

        // Raw HTTP: a page of HTML goes up as a file and comes down as text to save.
        let bobAuth = ["Authorization": "Bearer \(bobIn.token)"]
        let html = Array("<html><script>alert('hi')</script></html>".utf8)
        let put = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media?kind=file&chat=\(group.id.rawValue)", headers: bobAuth, body: html)
        #expect(put.status == 201, "\(put.text)")
        let uploaded = try Wire.decoder().decode(MediaInfo.self, from: Data(put.body))
        #expect(uploaded.kind == .file && uploaded.type == "text/plain" && uploaded.size == Int64(html.count))
        let get = try await RawHTTP.request(port: server.port, method: "GET", path: "/v1/media/\(uploaded.id)", headers: bobAuth)
        #expect(get.status == 200 && get.body == html)
        #expect(get.headers["content-type"] == "text/plain; charset=utf-8")
        #expect(get.headers["content-disposition"] == "attachment; filename=\"\(uploaded.id.prefix(12)).txt\"")
        #expect(get.headers["x-content-type-options"] == "nosniff")
        #expect(get.headers["content-security-policy"]?.contains("sandbox") == true)
        // Images are still shown inline, but never sniffed either.
        let png = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media", headers: bobAuth,
            body: Array(SampleMedia.png(width: 3, height: 3) { _, _ in [9, 9, 9, 255] }))
        let image = try Wire.decoder().decode(MediaInfo.self, from: Data(png.body))
        #expect(png.status == 201 && image.kind == .image, "no kind: the bytes decide")
        let shown = try await RawHTTP.request(port: server.port, method: "GET", path: "/v1/media/\(image.id)", headers: bobAuth)
        #expect(shown.headers["content-disposition"] == nil && shown.headers["x-content-type-options"] == "nosniff")
        // HEAD answers the same headers with no body.
        let head = try await RawHTTP.request(port: server.port, method: "HEAD", path: "/v1/media/\(image.id)", headers: bobAuth)
        #expect(head.status == 200 && head.body.isEmpty && head.headers["content-length"] == shown.headers["content-length"])
        #expect(head.headers["etag"] == shown.headers["etag"] && head.headers["content-type"] == "image/png")
        // Refusals carry the same protections: no token, no such file, a range past the end.
        let refusals = [
            try await RawHTTP.request(port: server.port, method: "GET", path: "/v1/media/\(image.id)"),
            try await RawHTTP.request(
                port: server.port, method: "GET", path: "/v1/media/\(String(repeating: "0", count: 64))", headers: bobAuth),
            try await RawHTTP.request(
                port: server.port, method: "GET", path: "/v1/media/\(image.id)",
                headers: bobAuth.merging(["Range": "bytes=999999-"]) { a, _ in a }),
            try await RawHTTP.request(port: server.port, method: "GET", path: "/no/such/route"),
        ]
        #expect(refusals.map(\.status) == [401, 404, 416, 404])
        for refusal in refusals {
            #expect(
                refusal.headers["x-content-type-options"] == "nosniff"
                    && refusal.headers["content-security-policy"]?.contains("sandbox") == true)
        }

        // Over the file limit: refused, announced or not, and nothing more is stored.
        let before = MediaServerTests.storedFiles(server)
        let big = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media?kind=file", headers: bobAuth, body: Array(repeating: 0x61, count: 4097))
        #expect(big.status == 413 && big.text.contains("file_too_large") && big.text.contains("a file may be at most 4.0 KiB"))
        let bogus = try await RawHTTP.request(
            port: server.port, method: "PUT", path: "/v1/media?kind=sound", headers: bobAuth, body: html)
        #expect(bogus.status == 400 && bogus.text.contains("kind is image, video or file"))
        #expect(MediaServerTests.storedFiles(server) == before)
        // A name the server refuses sends nothing.
        await expectError(.invalidArgument) {
            try await alice.sendMedia(to: .chat(group.id), media: media.id, caption: "", name: "../x", clientID: nil, via: nil)
        }
        #expect(try await bob.history(chat: group.id, limit: 5, before: nil).count == 1)
        _ = aliceIn
        await alice.close()
        await bob.close()
        await server.stop()
    }
}
