import CJPEG
public import Foundation

/// Small, well-formed media files made from scratch for tests and benchmarks: PNG and
/// JPEG with real pixels (decodable), the others with a correct structure around
/// filler bytes (what the server checks).
public enum SampleMedia {
    /// An RGBA PNG whose pixel (x, y) is `pixel(x, y)`, stored uncompressed.
    public static func png(width: Int, height: Int, pixel: (Int, Int) -> [UInt8]) -> Data {
        var raw = [UInt8]()
        raw.reserveCapacity((width * 4 + 1) * height)
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { raw += pixel(x, y) }
        }
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, raw.count - offset)
            let last: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        zlib += bigEndian(adler32(raw))
        var data: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        data += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 6, 0, 0, 0])
        data += chunk("IDAT", zlib)
        data += chunk("IEND", [])
        return Data(data)
    }

    /// A baseline JPEG (libjpeg) whose pixel (x, y) is `pixel(x, y)` as RGB.
    public static func jpeg(width: Int, height: Int, quality: Int32 = 90, pixel: (Int, Int) -> [UInt8]) -> Data {
        var rgb = [UInt8]()
        rgb.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width { rgb += pixel(x, y).prefix(3) }
        }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: 200)
        let ok = parley_jpeg_encode(rgb, UInt32(width), UInt32(height), quality, &output, &size, &message, message.count)
        guard ok == 1, let output else { return Data() }
        defer { free(output) }
        return Data(bytes: output, count: Int(size))
    }

    /// A GIF header, a one-colour image and the trailer.
    public static func gif(width: Int, height: Int) -> Data {
        var data = Array("GIF89a".utf8) + littleEndian16(width) + littleEndian16(height) + [0x80, 0, 0]
        data += [0, 0, 0, 255, 255, 255]
        data += [0x2C, 0, 0, 0, 0] + littleEndian16(width) + littleEndian16(height) + [0]
        data += [2, 2, 0x44, 0x01, 0, 0x3B]
        return Data(data)
    }

    /// A lossless WebP container (VP8L header with the size) around filler bytes.
    public static func webp(width: Int, height: Int) -> Data {
        let bits = UInt32(width - 1) | UInt32(height - 1) << 14
        var payload: [UInt8] = [0x2F] + littleEndian32(bits) + [UInt8](repeating: 0, count: 11)
        if payload.count % 2 == 1 { payload.append(0) }
        let chunk = Array("VP8L".utf8) + littleEndian32(UInt32(payload.count)) + payload
        return Data(Array("RIFF".utf8) + littleEndian32(UInt32(4 + chunk.count)) + Array("WEBP".utf8) + chunk)
    }

    /// An MP4 (or with `quicktime`, a MOV): `ftyp`, a `moov`, and an `mdat` of
    /// `payload` filler bytes.
    public static func mp4(payload: Int, quicktime: Bool = false) -> Data {
        var data = Data(mp4Header(payload: payload, quicktime: quicktime))
        data.append(Data(repeating: 0x5A, count: payload))
        return data
    }

    /// The same as `mp4`, written to `url` a mebibyte at a time (for large ones).
    public static func writeMP4(to url: URL, payload: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.write(contentsOf: mp4Header(payload: payload, quicktime: false))
        let block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        var left = payload
        while left > 0 {
            let count = min(left, block.count)
            try handle.write(contentsOf: block.prefix(count))
            left -= count
        }
    }

    /// A WebM: the EBML header naming `webm`, and a segment of `payload` filler bytes.
    public static func webm(payload: Int) -> Data {
        let docType = [0x42, 0x82, 0x84] + Array("webm".utf8)
        var data: [UInt8] = [0x1A, 0x45, 0xDF, 0xA3, 0x80 | UInt8(docType.count)] + docType
        data += [0x18, 0x53, 0x80, 0x67, 0x01] + bigEndian64(UInt64(payload)).suffix(7)
        data += [UInt8](repeating: 0xEC, count: payload)
        return Data(data)
    }

    private static func mp4Header(payload: Int, quicktime: Bool) -> [UInt8] {
        let brand = Array((quicktime ? "qt  " : "isom").utf8)
        let ftyp = bigEndian(20) + Array("ftyp".utf8) + brand + bigEndian(0x200) + brand
        let moov = bigEndian(16) + Array("moov".utf8) + bigEndian(8) + Array("free".utf8)
        let mdat = bigEndian(1) + Array("mdat".utf8) + bigEndian64(UInt64(payload + 16))
        return ftyp + moov + mdat
    }

    private static func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + body
        return bigEndian(UInt32(body.count)) + typed + bigEndian(crc32(typed))
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    private static func bigEndian64(_ value: UInt64) -> [UInt8] {
        stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: value >> UInt64($0)) }
    }
    private static func littleEndian16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    private static func littleEndian32(_ value: UInt32) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) } }
}
