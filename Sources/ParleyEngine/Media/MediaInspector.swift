import Foundation
public import ParleyCore

/// Decides what a file is from its bytes, and refuses one that is cut short.
///
/// `sniff` needs only the first bytes, so an upload learns its kind (and its size
/// limit) early; `inspect` reads the whole file's structure: PNG chunks up to IEND,
/// JPEG segments up to the end-of-image marker after the scan, the GIF trailer, the
/// RIFF size of WebP, every top-level MP4/MOV box, the WebM segment size.
public enum MediaInspector {
    public struct Found: Hashable, Sendable {
        public var kind: MediaKind
        public var type: String
        public var width: Int?
        public var height: Int?
    }

    /// The refusal of bytes of no type Parley takes.
    public static let unsupported = ParleyError(
        .unsupportedMedia, "not a PNG, JPEG, GIF or WebP image, nor an MP4, MOV or WebM video")

    /// How many leading bytes `sniff` wants.
    public static let sniffLength = 32

    /// The kind and MIME type, or nil for bytes of no type Parley takes.
    public static func sniff(_ head: UnsafeRawBufferPointer) -> (kind: MediaKind, type: String)? {
        let bytes = Bytes(head)
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return (.image, "image/png") }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return (.image, "image/jpeg") }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) { return (.image, "image/gif") }
        if bytes.starts(with: Array("RIFF".utf8)), bytes.matches(Array("WEBP".utf8), at: 8) { return (.image, "image/webp") }
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return (.video, "video/webm") }
        if bytes.matches(Array("ftyp".utf8), at: 4) {
            return (.video, bytes.matches(Array("qt  ".utf8), at: 8) ? "video/quicktime" : "video/mp4")
        }
        // Old QuickTime files start straight with one of these atoms.
        for atom in ["moov", "mdat", "wide", "free", "skip"] where bytes.matches(Array(atom.utf8), at: 4) {
            return (.video, "video/quicktime")
        }
        return nil
    }

    /// The whole file's type and dimensions, or `unsupported_media` / `truncated_media`
    /// / `empty_file`.
    public static func inspect(_ data: UnsafeRawBufferPointer) throws(ParleyError) -> Found {
        guard !data.isEmpty else { throw ParleyError(.emptyFile, "the file is empty") }
        guard let (kind, type) = sniff(data) else { throw unsupported }
        let bytes = Bytes(data)
        var found = Found(kind: kind, type: type)
        switch type {
        case "image/png": (found.width, found.height) = try png(bytes)
        case "image/jpeg": (found.width, found.height) = try jpeg(bytes)
        case "image/gif": (found.width, found.height) = try gif(bytes)
        case "image/webp": (found.width, found.height) = try webp(bytes)
        case "video/webm": try webm(bytes)
        default: try isoBoxes(bytes)
        }
        if kind == .image, found.width ?? 0 == 0 || found.height ?? 0 == 0 {
            throw ParleyError(.unsupportedMedia, "the image says it has no pixels")
        }
        return found
    }

    /// Any file, as a file: PDF, ZIP and gzip by their first bytes; otherwise
    /// `text/plain` when the whole file is UTF-8 without NUL bytes, else
    /// `application/octet-stream`. Only `empty_file` refuses one.
    public static func inspectFile(_ data: UnsafeRawBufferPointer) throws(ParleyError) -> Found {
        guard !data.isEmpty else { throw ParleyError(.emptyFile, "the file is empty") }
        let bytes = Bytes(data)
        let type =
            if bytes.starts(with: Array("%PDF-".utf8)) {
                "application/pdf"
            } else if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) {
                "application/zip"
            } else if bytes.starts(with: [0x1F, 0x8B]) {
                "application/gzip"
            } else if isText(data) {
                "text/plain"
            } else {
                "application/octet-stream"
            }
        return Found(kind: .file, type: type)
    }

    /// Whether the bytes are well-formed UTF-8 (no overlong forms, surrogates or code
    /// points past U+10FFFF) without a NUL byte.
    public static func isText(_ raw: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = raw.count
        while index < count {
            let lead = raw[index]
            if lead == 0 { return false }
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var value: UInt32
            switch lead {
            case 0xC2...0xDF: (length, value) = (2, UInt32(lead & 0x1F))
            case 0xE0...0xEF: (length, value) = (3, UInt32(lead & 0x0F))
            case 0xF0...0xF4: (length, value) = (4, UInt32(lead & 0x07))
            default: return false
            }
            guard length <= count - index else { return false }
            for offset in 1..<length {
                let next = raw[index + offset]
                guard next & 0xC0 == 0x80 else { return false }
                value = value << 6 | UInt32(next & 0x3F)
            }
            let smallest: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
            guard value >= smallest, value <= 0x10FFFF, !(0xD800...0xDFFF).contains(value) else { return false }
            index += length
        }
        return true
    }

    private static func truncated(_ type: String) -> ParleyError {
        ParleyError(.truncatedMedia, "the \(type) file is cut short or damaged")
    }

    private static func png(_ bytes: Bytes) throws(ParleyError) -> (Int, Int) {
        var offset = 8
        var size: (Int, Int)?
        var sawData = false
        while true {
            guard offset + 8 <= bytes.count else { throw truncated("PNG") }
            let length = Int(bytes.be32(offset))
            let type = bytes.ascii(offset + 4, 4)
            guard length <= Int(Int32.max), bytes.fits(offset, 12 + length) else { throw truncated("PNG") }
            if size == nil {
                guard type == "IHDR", length == 13 else { throw truncated("PNG") }
                size = (Int(bytes.be32(offset + 8)), Int(bytes.be32(offset + 12)))
            }
            if type == "IDAT" { sawData = true }
            offset += 12 + length
            if type == "IEND" { break }
        }
        guard sawData, let size else { throw truncated("PNG") }
        return size
    }

    private static func jpeg(_ bytes: Bytes) throws(ParleyError) -> (Int, Int) {
        var offset = 2
        var size: (Int, Int)?
        while true {
            // Markers may be padded with extra 0xFF bytes.
            while offset < bytes.count, bytes[offset] == 0xFF, offset + 1 < bytes.count, bytes[offset + 1] == 0xFF { offset += 1 }
            guard offset + 4 <= bytes.count, bytes[offset] == 0xFF else { throw truncated("JPEG") }
            let marker = bytes[offset + 1]
            if (0xD0...0xD7).contains(marker) || marker == 0x01 {
                offset += 2
                continue
            }
            let length = Int(bytes.be16(offset + 2))
            guard length >= 2, bytes.fits(offset, 2 + length) else { throw truncated("JPEG") }
            let isFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isFrame, length >= 7 {
                size = (Int(bytes.be16(offset + 7)), Int(bytes.be16(offset + 5)))
            }
            offset += 2 + length
            if marker == 0xDA { break }
        }
        // The entropy-coded data runs to the end-of-image marker; a thumbnail's own
        // marker sits before the scan, so only one after it counts.
        guard let size, bytes.lastIndex(of: [0xFF, 0xD9], from: offset) != nil else { throw truncated("JPEG") }
        return size
    }

    private static func gif(_ bytes: Bytes) throws(ParleyError) -> (Int, Int) {
        guard bytes.count >= 14, bytes[bytes.count - 1] == 0x3B else { throw truncated("GIF") }
        return (Int(bytes.le16(6)), Int(bytes.le16(8)))
    }

    private static func webp(_ bytes: Bytes) throws(ParleyError) -> (Int, Int) {
        guard bytes.count >= 30, Int(bytes.le32(4)) + 8 <= bytes.count else { throw truncated("WebP") }
        switch bytes.ascii(12, 4) {
        case "VP8X":
            return (Int(bytes.le24(24)) + 1, Int(bytes.le24(27)) + 1)
        case "VP8 ":
            guard bytes.matches([0x9D, 0x01, 0x2A], at: 23) else { throw truncated("WebP") }
            return (Int(bytes.le16(26) & 0x3FFF), Int(bytes.le16(28) & 0x3FFF))
        case "VP8L":
            guard bytes[20] == 0x2F else { throw truncated("WebP") }
            let bits = bytes.le32(21)
            return (Int(bits & 0x3FFF) + 1, Int((bits >> 14) & 0x3FFF) + 1)
        default:
            throw ParleyError(.unsupportedMedia, "a WebP file without an image chunk")
        }
    }

    /// MP4 and MOV: the top-level boxes must tile the file exactly, and hold a `moov`.
    private static func isoBoxes(_ bytes: Bytes) throws(ParleyError) {
        var offset = 0
        var sawMovie = false
        while offset < bytes.count {
            guard offset + 8 <= bytes.count else { throw truncated("video") }
            var size = Int(bytes.be32(offset))
            let type = bytes.ascii(offset + 4, 4)
            if size == 1 {
                guard offset + 16 <= bytes.count else { throw truncated("video") }
                let large = bytes.be64(offset + 8)
                guard large <= UInt64(Int.max) else { throw truncated("video") }
                size = Int(large)
            } else if size == 0 {
                size = bytes.count - offset
            }
            guard size >= 8, bytes.fits(offset, size) else { throw truncated("video") }
            if type == "moov" { sawMovie = true }
            offset += size
        }
        guard sawMovie else { throw truncated("video") }
    }

    /// WebM: an EBML header naming the `webm` doc type, then a segment whose declared
    /// size (unless unknown, as in a live recording) fits in the file.
    private static func webm(_ bytes: Bytes) throws(ParleyError) {
        var offset = 4
        guard let (headerSize, headerLength) = bytes.vint(offset) else { throw truncated("WebM") }
        offset += headerLength
        guard bytes.fits(offset, Int(headerSize)) else { throw truncated("WebM") }
        let headerEnd = offset + Int(headerSize)
        var docType: String?
        while offset < headerEnd {
            guard let (id, idLength) = bytes.vint(offset, keepMarker: true),
                let (size, sizeLength) = bytes.vint(offset + idLength)
            else { throw truncated("WebM") }
            let body = offset + idLength + sizeLength
            guard body <= headerEnd, size <= UInt64(headerEnd - body) else { throw truncated("WebM") }
            if id == 0x4282 { docType = bytes.ascii(body, Int(size)) }
            offset = body + Int(size)
        }
        guard docType == "webm" else {
            throw ParleyError(.unsupportedMedia, "a Matroska file that is not WebM (\(docType ?? "no doc type"))")
        }
        guard let (id, idLength) = bytes.vint(offset, keepMarker: true), id == 0x1853_8067,
            let (size, sizeLength) = bytes.vint(offset + idLength)
        else { throw truncated("WebM") }
        let unknown = size == (UInt64(1) << (7 * sizeLength)) - 1
        let body = offset + idLength + sizeLength
        guard unknown || (size > 0 && bytes.fits(body, Int(size))) else { throw truncated("WebM") }
    }
}

/// Bounds-checked reads of big- and little-endian numbers.
private struct Bytes {
    let raw: UnsafeRawBufferPointer
    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    var count: Int { raw.count }
    subscript(_ index: Int) -> UInt8 { index < raw.count ? raw[index] : 0 }

    func matches(_ prefix: [UInt8], at offset: Int) -> Bool {
        fits(offset, prefix.count) && prefix.indices.allSatisfy { raw[offset + $0] == prefix[$0] }
    }

    /// Whether `length` bytes from `offset` lie inside the file, without overflow for
    /// any sizes a file may claim.
    func fits(_ offset: Int, _ length: Int) -> Bool {
        offset >= 0 && length >= 0 && offset <= raw.count && length <= raw.count - offset
    }
    func starts(with prefix: [UInt8]) -> Bool { matches(prefix, at: 0) }

    func be16(_ at: Int) -> UInt32 { UInt32(self[at]) << 8 | UInt32(self[at + 1]) }
    func be32(_ at: Int) -> UInt32 { be16(at) << 16 | be16(at + 2) }
    func be64(_ at: Int) -> UInt64 { UInt64(be32(at)) << 32 | UInt64(be32(at + 4)) }
    func le16(_ at: Int) -> UInt32 { UInt32(self[at]) | UInt32(self[at + 1]) << 8 }
    func le24(_ at: Int) -> UInt32 { le16(at) | UInt32(self[at + 2]) << 16 }
    func le32(_ at: Int) -> UInt32 { le16(at) | le16(at + 2) << 16 }

    func ascii(_ at: Int, _ length: Int) -> String {
        guard fits(at, length) else { return "" }
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[at..<at + length]), as: UTF8.self)
    }

    /// The last occurrence of `pattern` starting at or after `from`.
    func lastIndex(of pattern: [UInt8], from: Int) -> Int? {
        var index = raw.count - pattern.count
        while index >= from {
            if matches(pattern, at: index) { return index }
            index -= 1
        }
        return nil
    }

    /// An EBML variable-length integer and its length in bytes; ids keep their marker bit.
    func vint(_ at: Int, keepMarker: Bool = false) -> (UInt64, Int)? {
        guard at < raw.count else { return nil }
        let first = raw[at]
        guard first != 0 else { return nil }
        let length = first.leadingZeroBitCount + 1
        guard fits(at, length) else { return nil }
        var value = UInt64(keepMarker ? first : first & (0xFF >> length))
        for index in 1..<length { value = value << 8 | UInt64(raw[at + index]) }
        return (value, length)
    }
}
