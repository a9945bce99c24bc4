public import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written under a temporary name and put in place only when complete, so a
/// reader never sees half of it: a crash leaves at most a temporary file, which
/// `removeTemporaries(in:)` clears.
///
/// ```swift
/// let file = try AtomicFile(temporaryIn: folder)
/// try file.write(bytes)
/// try file.commit(to: destination, replace: false)
/// ```
public final class AtomicFile {
    /// Temporary files start with this, so they can be told from finished ones.
    public static let temporaryPrefix = ".partial-"

    public let temporaryURL: URL
    private var descriptor: Int32
    public private(set) var size: Int64 = 0

    /// Creates an empty temporary file in `folder` (mode 0600).
    public init(temporaryIn folder: URL) throws(ParleyError) {
        let name = Self.temporaryPrefix + UUID().uuidString.lowercased()
        temporaryURL = folder.appendingPathComponent(name)
        descriptor = open(temporaryURL.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Self.failure("cannot create a file in \(folder.path)") }
    }

    deinit { discard() }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(ParleyError) {
        guard descriptor >= 0 else { throw ParleyError(.fileError, "the file was already closed") }
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.failure("cannot write \(temporaryURL.path)")
            }
            offset += written
        }
        size += Int64(bytes.count)
    }

    public func write(_ data: some ContiguousBytes) throws(ParleyError) {
        let result: Result<Void, ParleyError> = data.withUnsafeBytes { bytes in
            do throws(ParleyError) { try write(bytes) } catch { return .failure(error) }
            return .success(())
        }
        try result.get()
    }

    /// Flushes the bytes to disk and closes the file, which stays under its temporary
    /// name until `commit`.
    public func finish() throws(ParleyError) {
        guard descriptor >= 0 else { return }
        defer {
            close(descriptor)
            descriptor = -1
        }
        guard fsync(descriptor) == 0 else { throw Self.failure("cannot flush \(temporaryURL.path)") }
    }

    /// Puts the file at `destination`. Without `replace`, an existing file there wins
    /// and this one is removed: `false` is returned and nothing is overwritten.
    @discardableResult
    public func commit(to destination: URL, replace: Bool) throws(ParleyError) -> Bool {
        try finish()
        defer { unlink(temporaryURL.path) }
        if replace {
            guard rename(temporaryURL.path, destination.path) == 0 else {
                throw Self.failure("cannot write \(destination.path)")
            }
        } else if link(temporaryURL.path, destination.path) != 0 {
            // link(2) never replaces: the check and the write are one step.
            if errno == EEXIST { return false }
            throw Self.failure("cannot write \(destination.path)")
        }
        Self.syncFolder(destination.deletingLastPathComponent())
        return true
    }

    /// Puts `data` at `destination` (mode 0600) in one step: a temporary file beside it,
    /// flushed to disk, renamed over the old one. Every small file Parley keeps (the
    /// session, the outbox, bot credentials, the current chat) is written this way.
    public static func replaceContents(of destination: URL, with data: some ContiguousBytes) throws(ParleyError) {
        let file = try AtomicFile(temporaryIn: destination.deletingLastPathComponent())
        try file.write(data)
        try file.commit(to: destination, replace: true)
    }

    /// Closes and removes the temporary file (nothing happens after a commit).
    public func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(temporaryURL.path)
    }

    /// Removes the temporary files a crash left in `folder`.
    /// With `untouchedFor`, only those not written to for that long (another process
    /// sharing the folder may be writing the others).
    public static func removeTemporaries(in folder: URL, untouchedFor age: TimeInterval? = nil) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let cutoff = age.map { Date().addingTimeInterval(-$0) }
        for name in names where name.hasPrefix(temporaryPrefix) {
            let path = folder.appendingPathComponent(name).path
            if let cutoff {
                let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]) as? Date
                guard let modified, modified < cutoff else { continue }
            }
            unlink(path)
        }
    }

    /// Makes a rename in `folder` durable.
    private static func syncFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private static func failure(_ what: String) -> ParleyError {
        ParleyError(.fileError, "\(what): \(String(cString: strerror(errno)))")
    }
}
