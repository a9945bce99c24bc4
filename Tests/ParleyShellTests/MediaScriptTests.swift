import Foundation
import ParleyCore
import ParleyShell
import ParleyTesting
import Testing

@Suite(.timeLimit(.minutes(10))) struct MediaScriptTests {
    /// Sample files in a folder of their own.
    static func samples() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-samples-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("out"), withIntermediateDirectories: true)
        let png = SampleMedia.png(width: 7, height: 5) { x, y in [UInt8(x * 30), UInt8(y * 40), 90, 255] }
        try png.write(to: folder.appendingPathComponent("sunset.png"))
        try png.prefix(png.count - 30).write(to: folder.appendingPathComponent("broken.png"))
        try SampleMedia.mp4(payload: 30_000).write(to: folder.appendingPathComponent("clip.mp4"))
        try SampleMedia.jpeg(width: 32, height: 32) { x, y in [UInt8(x * 8), 100, UInt8(y * 8)] }.write(
            to: folder.appendingPathComponent("face.jpg"))
        try Data().write(to: folder.appendingPathComponent("empty.png"))
        return folder
    }

    @Test(arguments: ParleyBinary.Mode.allCases) func imagesVideosAvatarsAndSaving(mode: ParleyBinary.Mode) async throws {
        let parley = try await ParleyBinary(mode: mode)
        let files = try Self.samples()
        defer {
            parley.remove()
            try? FileManager.default.removeItem(at: files)
        }
        let f = files.path
        let result = try await parley.run(
            aliceAndBob + """

                /join #swift
                /logout
                /login @alice --password secret-alice
                /image #swift \(f)/sunset.png the view tonight
                /video #swift \(f)/clip.mp4
                /avatar \(f)/face.jpg
                /whois @alice
                /members #swift
                /history #swift
                /chats
                /save #swift 1 \(f)/out/
                /save #swift 1 \(f)/out/
                /save #swift 1 \(f)/out/ --force
                /save #swift 2 \(f)/out/copy.mp4
                /image #swift \(f)/broken.png
                /image #swift \(f)/missing.png
                /image #swift \(f)
                /image #swift \(f)/clip.mp4
                /video #swift \(f)/sunset.png
                /image #swift \(f)/empty.png
                /save #swift 9
                /history #swift
                """, arguments: ["--keep-going"])
        #expect(result.status == 1, "the refused lines make the script fail")
        let out = result.stdout
        #expect(
            out.contains(
                "#swift <alice> [image PNG 7×5 \(byteCount(Int64(try Data(contentsOf: files.appendingPathComponent("sunset.png")).count)))] the view tonight"
            ))
        #expect(out.contains("#swift <alice> [video MP4 "))
        #expect(out.contains("Avatar set: [image JPEG 32×32 "))
        #expect(out.contains("@alice Alice Liddell (has avatar) — joined "))
        #expect(out.contains("@alice Alice Liddell (owner) (has avatar)"))
        #expect(out.contains("#swift [") && out.contains("<alice> [video]"))
        #expect(out.contains("Saved [image PNG 7×5 ") && out.contains("to \(f)/out/swift-1.png"))
        #expect(out.contains("to \(f)/out/copy.mp4"))
        #expect(
            try Data(contentsOf: files.appendingPathComponent("out/swift-1.png"))
                == Data(contentsOf: files.appendingPathComponent("sunset.png")))
        #expect(
            try Data(contentsOf: files.appendingPathComponent("out/copy.mp4")) == Data(contentsOf: files.appendingPathComponent("clip.mp4"))
        )
        let errors = result.stderr
        for code in ["file_exists", "truncated_media", "file_not_found", "not_a_file", "media_mismatch", "empty_file", "unknown_message"] {
            #expect(errors.contains("error: \(code):"), "\(code) missing from: \(errors)")
        }
        #expect(errors.components(separatedBy: "media_mismatch").count == 3, "both /image of a video and /video of an image")
        // Nothing refused was stored: the last history shows the same two messages.
        let histories = out.components(separatedBy: "1. [")
        #expect(histories.count == 3)
        #expect(!histories[2].contains("3. ["))
    }

    @Test func jsonOutputCarriesTheMediaAndNoPreview() async throws {
        let parley = try await ParleyBinary()
        let files = try Self.samples()
        defer {
            parley.remove()
            try? FileManager.default.removeItem(at: files)
        }
        let result = try await parley.run(
            aliceAndBob + "\n/join #swift\n/image #swift \(files.path)/sunset.png hi\n", arguments: ["--json"],
            environment: ["COLORTERM": "truecolor"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.lines.first { $0.contains("\"command\":\"image\"") })
        #expect(line.contains("\"kind\":\"image\""))
        #expect(line.contains("\"type\":\"image\\/png\"") || line.contains("\"type\":\"image/png\""))
        #expect(line.contains("\"width\":7") && line.contains("\"height\":5"))
        #expect(!result.stdout.contains("\u{1B}["), "no preview or colour in JSON output")
    }

    /// `parley serve` killed with SIGKILL in the middle of an upload: the temporary file
    /// it leaves is gone once the server starts again, and no blob was stored.
    @Test(.timeLimit(.minutes(10))) func aServerKilledMidUploadKeepsNoHalfFile() async throws {
        let parley = try await ParleyBinary(mode: .server)
        defer { parley.remove() }
        let registered = try await parley.run("/register alice@example.com --handle alice --password secret-alice\n")
        #expect(registered.status == 0, "\(registered.stderr)")
        let token = try String(contentsOf: parley.sessionFolder.appendingPathComponent("session"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let port = try #require(parley.serverURL.flatMap { URL(string: $0)?.port })
        let video = Array(SampleMedia.mp4(payload: 2_000_000))
        let upload = try RawHTTP.PartialUpload(
            port: port, path: "/v1/media?kind=video", token: token, announced: video.count, body: Array(video.prefix(1_000_000)))
        let media = parley.data.appendingPathComponent("server-data/media")
        let temporaries = media.appendingPathComponent("tmp")
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, ((try? FileManager.default.contentsOfDirectory(atPath: temporaries.path)) ?? []).isEmpty {
            guard await pause(.milliseconds(20)) else { break }
        }
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: temporaries.path)) ?? []).count == 1)
        #expect(parley.stopServer(signal: SIGKILL) != nil)
        upload.hangUp()

        let again = try await ParleyBinary.restartServer(data: parley.data.appendingPathComponent("server-data"))
        defer { again.terminate() }
        let left = FileManager.default.enumerator(atPath: media.path)?.allObjects as? [String] ?? []
        #expect(left.sorted() == ["tmp"], "\(left)")
    }
}

@Suite(.timeLimit(.minutes(10))) struct ImagePreviewTests {
    /// A 4×4 PNG: red and green on the first two rows, blue and a transparent hole
    /// below, decoded by libpng and drawn as two rows of two half-block cells each.
    @Test func aSmallPNGIsDrawnCellForCellInItsColours() throws {
        let png = SampleMedia.png(width: 4, height: 4) { x, y in
            switch (x / 2, y / 2) {
            case (0, 0): [255, 0, 0, 255]
            case (1, 0): [0, 255, 0, 255]
            case (0, 1): [0, 0, 255, 255]
            default: [0, 0, 0, 0]
            }
        }
        let image = try PixelImage.decode(png, type: "image/png")
        #expect(image.width == 4 && image.height == 4)
        let red = ImagePreview.Colour(255, 0, 0)
        let green = ImagePreview.Colour(0, 255, 0)
        let blue = ImagePreview.Colour(0, 0, 255)
        // Full size: 4 columns, 2 rows of cells.
        let cells = ImagePreview.cells(image, columns: 10, rows: 10)
        #expect(
            cells == [
                [
                    .init(top: red, bottom: red), .init(top: red, bottom: red), .init(top: green, bottom: green),
                    .init(top: green, bottom: green),
                ],
                [
                    .init(top: blue, bottom: blue), .init(top: blue, bottom: blue), .init(top: nil, bottom: nil),
                    .init(top: nil, bottom: nil),
                ],
            ])
        // Scaled to 2 columns: each cell is a 2×2 block averaged to one pixel per half.
        #expect(
            ImagePreview.cells(image, columns: 2, rows: 10) == [
                [.init(top: red, bottom: blue), .init(top: green, bottom: nil)]
            ])
        #expect(
            ImagePreview.lines(image, columns: 2, rows: 10) == [
                "\u{1B}[38;2;255;0;0;48;2;0;0;255m▀\u{1B}[0;38;2;0;255;0m▀\u{1B}[0m"
            ])
    }

    @Test func aJPEGDecodesToItsColoursAndABrokenOneIsRefused() throws {
        let jpeg = SampleMedia.jpeg(width: 16, height: 16, quality: 100) { _, _ in [40, 120, 200] }
        let image = try PixelImage.decode(jpeg, type: "image/jpeg")
        let cell = try #require(ImagePreview.cells(image, columns: 1, rows: 1).first?.first?.top)
        #expect(abs(Int(cell.red) - 40) <= 3 && abs(Int(cell.green) - 120) <= 3 && abs(Int(cell.blue) - 200) <= 3)
        #expect(throws: (any Error).self) { try PixelImage.decode(jpeg.prefix(100), type: "image/jpeg") }
    }
}
