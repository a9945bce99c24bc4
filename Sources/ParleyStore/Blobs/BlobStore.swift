public import Foundation
public import ParleyCore

/// Where media bytes live, named by the SHA-256 of their content, so the same content
/// is kept once. Writes go through an `AtomicFile` from `makeTemporary()`, put in
/// place by `commit`; a reader never sees half a file.
public protocol BlobStore: Sendable {
    /// A new temporary file, inside the store so the commit is a rename.
    func makeTemporary() throws(ParleyError) -> AtomicFile
    /// Puts a finished temporary file in place under `id`. False when the content was
    /// already stored (the temporary file is then dropped).
    @discardableResult
    func commit(_ file: AtomicFile, id: String) throws(ParleyError) -> Bool
    /// The file holding `id`, if stored.
    func url(of id: String) -> URL?
    func remove(_ id: String)
    /// A random secret every server on this store shares, made on first use: the key
    /// that signs media links.
    func linkKey() throws(ParleyError) -> Data
}

/// Blobs as files under a folder: `ab/abcdef…` (the first two hex digits fan them
/// out), temporaries in `tmp/`, cleared when the store opens. Several servers may share
/// the folder: a file's name is its content's hash and it appears by a rename, so they
/// never write one file differently; each then keeps its temporaries in a folder of its
/// own under `tmp/`, and clears the others' only once they are a day old.
///
/// ```swift
/// let blobs = try FileBlobStore(folder: data.appendingPathComponent("media"))
/// ```
public struct FileBlobStore: BlobStore {
    public let folder: URL
    private let temporaries: URL

    /// - Parameter owner: names the server among several sharing the folder (nil: the
    ///   only one).
    public init(folder: URL, owner: String? = nil) throws {
        self.folder = folder
        let shared = folder.appendingPathComponent("tmp")
        let name = owner.map { String($0.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }.prefix(120)) }
        temporaries = name.map { shared.appendingPathComponent($0) } ?? shared
        try FileManager.default.createDirectory(at: temporaries, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // A temporary file of this server's was left by a crash mid-upload: nothing
        // refers to it. Another server's may be an upload in progress, unless it is a
        // day old.
        AtomicFile.removeTemporaries(in: temporaries)
        guard name != nil else { return }
        AtomicFile.removeTemporaries(in: shared, untouchedFor: 24 * 3600)
        for other in (try? FileManager.default.contentsOfDirectory(atPath: shared.path)) ?? [] where other != name {
            AtomicFile.removeTemporaries(in: shared.appendingPathComponent(other), untouchedFor: 24 * 3600)
        }
    }

    public func makeTemporary() throws(ParleyError) -> AtomicFile {
        try AtomicFile(temporaryIn: temporaries)
    }

    public func commit(_ file: AtomicFile, id: String) throws(ParleyError) -> Bool {
        let destination = path(of: id)
        do {
            try FileManager.default.createDirectory(at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw ParleyError(.fileError, "cannot create \(destination.deletingLastPathComponent().path)")
        }
        return try file.commit(to: destination, replace: false)
    }

    public func url(of id: String) -> URL? {
        guard MediaInfo.isValidID(id) else { return nil }
        let url = path(of: id)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    public func remove(_ id: String) {
        guard MediaInfo.isValidID(id) else { return }
        try? FileManager.default.removeItem(at: path(of: id))
    }

    public func linkKey() throws(ParleyError) -> Data {
        let file = folder.appendingPathComponent("link.key")
        if let key = try? Data(contentsOf: file), key.count == 32 { return key }
        // Made by whichever server comes first: a rename that never replaces.
        let temporary = try makeTemporary()
        var random = SystemRandomNumberGenerator()
        try temporary.write(Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }))
        _ = try temporary.commit(to: file, replace: false)
        guard let key = try? Data(contentsOf: file), key.count == 32 else {
            throw ParleyError(.fileError, "cannot read the media link key at \(file.path)")
        }
        return key
    }

    private func path(of id: String) -> URL {
        folder.appendingPathComponent(String(id.prefix(2))).appendingPathComponent(id)
    }
}
