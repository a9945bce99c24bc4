import Foundation

public enum MediaKind: String, Codable, Sendable, CaseIterable {
    case image
    case video
    /// Any other file: a PDF, a text, an archive. Stored and passed on as bytes, never
    /// opened or rendered.
    case file

    /// "an image", "a video", "a file": for messages to people.
    public var withArticle: String {
        switch self {
        case .image: "an image"
        case .video: "a video"
        case .file: "a file"
        }
    }

    /// The kind a MIME type belongs to: `image/…`, `video/…`, or a file.
    public init(type: some StringProtocol) {
        self = type.hasPrefix("image/") ? .image : type.hasPrefix("video/") ? .video : .file
    }
}

/// An uploaded file, named by the SHA-256 of its bytes. Everything here was decided
/// from the bytes themselves (never from a file name), and since the id is the
/// content, none of it can change after the upload.
public struct MediaInfo: Hashable, Codable, Sendable {
    /// The SHA-256 of the content, 64 lowercase hex digits.
    public var id: String
    public var kind: MediaKind
    /// The MIME type: `image/png`, `image/jpeg`, `image/gif`, `image/webp`,
    /// `video/mp4`, `video/quicktime`, `video/webm`; for files `application/pdf`,
    /// `application/zip`, `application/gzip`, `text/plain` (UTF-8 without NUL bytes)
    /// or `application/octet-stream`.
    public var type: String
    public var size: Int64
    /// Pixel dimensions, for images.
    public var width: Int?
    public var height: Int?
    /// The file's name as its sender gave it, with the message that carries it (the
    /// same bytes may go out under other names). Shown, and offered by `/save`; never
    /// used to decide the type. nil when none was given.
    public var name: String?

    public init(id: String, kind: MediaKind, type: String, size: Int64, width: Int?, height: Int?, name: String? = nil) {
        self.id = id
        self.kind = kind
        self.type = type
        self.size = size
        self.width = width
        self.height = height
        self.name = name
    }

    /// The usual file extension for the type: `png`, `jpg`, `mp4`, `pdf`, `txt`…
    public var fileExtension: String {
        switch type {
        case "image/jpeg": "jpg"
        case "video/quicktime": "mov"
        case "text/plain": "txt"
        case "application/gzip": "gz"
        case "application/octet-stream": "bin"
        default: String(type.split(separator: "/").last ?? "bin")
        }
    }

    /// The longest file name a message carries, in UTF-8 bytes (what file systems take).
    public static let maxNameBytes = FileName.maxBytes

    /// A file name as a message may carry it: trimmed, 1–255 bytes, no control
    /// characters, no `/` or `\\`, not `.` or `..`, and kept as `FileName.cleaned` makes
    /// it (no direction-changing or invisible characters, no leading dot or `~`, no
    /// device name); nil for nil or empty.
    public static func checkedName(_ name: String?) throws(ParleyError) -> String? {
        guard let trimmed = name?.trimmingSpaces(), !trimmed.isEmpty else { return nil }
        let refused = ParleyError(.invalidArgument, "a file name is 1–\(maxNameBytes) bytes without control characters, / or \\")
        guard trimmed.utf8.count <= maxNameBytes, trimmed != ".", trimmed != "..",
            !trimmed.unicodeScalars.contains(where: { Limits.isControl($0) || $0 == "/" || $0 == "\\" })
        else { throw refused }
        guard let cleaned = FileName.cleaned(trimmed) else { throw refused }
        return cleaned
    }

    /// `PNG` for `image/png`, `MOV` for `video/quicktime`.
    public var typeName: String { fileExtension == "jpg" ? "JPEG" : fileExtension.uppercased() }

    /// Whether `text` looks like a media id (64 hex digits).
    public static func isValidID(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// How big an upload may be, per kind.
public struct MediaLimits: Hashable, Codable, Sendable {
    public var maxImageBytes: Int64
    public var maxVideoBytes: Int64
    public var maxFileBytes: Int64

    public init(maxImageBytes: Int64 = 10 << 20, maxVideoBytes: Int64 = 200 << 20, maxFileBytes: Int64 = 25 << 20) {
        self.maxImageBytes = maxImageBytes
        self.maxVideoBytes = maxVideoBytes
        self.maxFileBytes = maxFileBytes
    }

    public func maxBytes(_ kind: MediaKind) -> Int64 {
        switch kind {
        case .image: maxImageBytes
        case .video: maxVideoBytes
        case .file: maxFileBytes
        }
    }

    /// The largest upload of any kind, the cap before the kind is known.
    public var maxBytes: Int64 { max(maxImageBytes, maxVideoBytes, maxFileBytes) }

    /// The limit for `kind`, or for any kind when nil.
    public func maxBytes(_ kind: MediaKind?) -> Int64 { kind.map { maxBytes($0) } ?? maxBytes }

    /// The refusal of a file over the limit for `kind` (any kind when nil).
    public func tooLarge(_ kind: MediaKind?) -> ParleyError {
        ParleyError(.fileTooLarge, "\(kind?.withArticle ?? "a file") may be at most \(byteCount(maxBytes(kind)))")
    }
}

/// Reports a transfer's progress: bytes done and the total (0 when unknown).
public typealias TransferProgress = @Sendable (_ done: Int64, _ total: Int64) -> Void

/// Byte counts for people: `812 B`, `12.3 KiB`, `4.0 MiB`.
public func byteCount(_ bytes: Int64) -> String {
    if bytes < 1024 { return "\(bytes) B" }
    let units = ["KiB", "MiB", "GiB", "TiB"]
    var value = Double(bytes) / 1024
    var unit = 0
    while value >= 1024, unit < units.count - 1 {
        value /= 1024
        unit += 1
    }
    return String(format: "%.1f %@", value, units[unit])
}
