import Crypto
import Foundation
public import ParleyCore
import ParleyStore

/// One upload on its way in: bytes are hashed and written to a temporary file as they
/// arrive, the type is sniffed from the first ones (so an image over the image limit
/// stops at the limit, not at the end), and `finish` checks the whole file before it
/// is stored. Anything refused leaves nothing behind.
///
/// Expecting an image or a video, other bytes are refused. Expecting a file (or
/// nothing), any bytes are taken: an image or video that inspects whole stays one (and
/// keeps its preview), anything else is a file under the file limit.
///
/// ```swift
/// let upload = try await engine.beginUpload(by: user, expecting: .image, for: .chat(chat))
/// try upload.append(bytes)
/// let media = try await upload.finish()
/// ```
public final class MediaUpload: @unchecked Sendable {
    // One task feeds an upload; it is Sendable only so that task can be a child task.
    private let engine: ChatEngine
    private let blobs: any BlobStore
    private let user: User
    private let expected: MediaKind?
    private let file: AtomicFile
    private var hasher = SHA256()
    private var head: [UInt8] = []
    private var sniffed: (kind: MediaKind, type: String)?
    /// The limit for the kind the bytes showed, else the kind announced, else any (a
    /// file announced may turn out to be a video).
    private var limit: Int64 { engine.configuration.mediaLimits.maxBytes(sniffed?.kind ?? strictKind) }
    /// The kind the bytes must be: image or video; nil when any bytes will do.
    private var strictKind: MediaKind? { expected == .file ? nil : expected }
    private var failed: ParleyError?

    init(engine: ChatEngine, blobs: any BlobStore, user: User, expected: MediaKind?) throws(ParleyError) {
        self.engine = engine
        self.blobs = blobs
        self.user = user
        self.expected = expected
        self.file = try blobs.makeTemporary()
    }

    deinit { file.discard() }

    /// Bytes received so far.
    public var size: Int64 { file.size }

    public func append(_ bytes: UnsafeRawBufferPointer) throws(ParleyError) {
        if let failed { throw failed }
        do throws(ParleyError) {
            if sniffed == nil, head.count < MediaInspector.sniffLength {
                head.append(contentsOf: bytes.prefix(MediaInspector.sniffLength - head.count))
                if head.count == MediaInspector.sniffLength { try decide() }
            }
            guard file.size + Int64(bytes.count) <= limit else { throw tooLarge() }
            hasher.update(bufferPointer: bytes)
            try file.write(bytes)
        } catch {
            failed = error
            file.discard()
            throw error
        }
    }

    /// Checks the whole file, stores it (once per content) and records the upload.
    public func finish() async throws -> MediaInfo {
        if let failed { throw failed }
        defer { file.discard() }
        guard file.size > 0 else { throw ParleyError(.emptyFile, "the file is empty") }
        if sniffed == nil { try decide() }
        try file.finish()
        let found = try Self.inspect(file.temporaryURL, strict: strictKind != nil)
        if let strictKind, found.kind != strictKind { throw mismatch(found.kind) }
        // Streamed under a video's limit, the bytes may have turned out a file.
        guard file.size <= engine.configuration.mediaLimits.maxBytes(found.kind) else {
            throw engine.configuration.mediaLimits.tooLarge(found.kind)
        }
        let id = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let media = MediaInfo(id: id, kind: found.kind, type: found.type, size: file.size, width: found.width, height: found.height)
        try blobs.commit(file, id: id)
        try await engine.store.recordMedia(media, uploader: user.id, at: engine.now)
        return media
    }

    private func decide() throws(ParleyError) {
        let sniff = head.withUnsafeBytes { MediaInspector.sniff($0) }
        if let strictKind {
            guard let sniff else { throw MediaInspector.unsupported }
            if sniff.kind != strictKind { throw mismatch(sniff.kind) }
        }
        sniffed = sniff ?? (.file, "")
        if file.size > limit { throw tooLarge() }
    }

    private func tooLarge() -> ParleyError {
        engine.configuration.mediaLimits.tooLarge(sniffed?.kind ?? strictKind)
    }

    private func mismatch(_ found: MediaKind) -> ParleyError {
        ParleyError(.mediaMismatch, "this file is \(found.withArticle), not \(expected?.withArticle ?? "media")")
    }

    /// Reads the structure of the finished file through a memory map: only the headers
    /// are touched, however large the file (a file that is not media is read through
    /// once, to tell text). Not `strict`, bytes that are not a whole image or video are
    /// a file.
    private static func inspect(_ url: URL, strict: Bool) throws(ParleyError) -> MediaInspector.Found {
        let data: Data
        do { data = try Data(contentsOf: url, options: .alwaysMapped) } catch {
            throw ParleyError(.fileError, "cannot read the upload back: \(error.localizedDescription)")
        }
        let result: Result<MediaInspector.Found, ParleyError> = data.withUnsafeBytes { bytes in
            do throws(ParleyError) { return .success(try MediaInspector.inspect(bytes)) } catch {
                guard !strict, error.code != .emptyFile else { return .failure(error) }
                do throws(ParleyError) { return .success(try MediaInspector.inspectFile(bytes)) } catch { return .failure(error) }
            }
        }
        return try result.get()
    }
}
