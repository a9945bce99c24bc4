import Foundation
public import ParleyCore

/// Lines of a file or of standard input, read as they come: a command runs before a
/// line not yet written is waited for, so a script can be fed from a pipe that waits on
/// the output. `nextIfReady` takes a line only if it can be had without waiting. Each
/// byte is scanned once, and a line longer than `maxLineBytes` is refused with `usage`
/// (and skipped) rather than held in memory.
public struct LineReader {
    public static let maxLineBytes = 256 * 1024

    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Where the unread bytes in `buffer` start.
    private var start = 0
    /// Where the search for the next newline resumes: `start...scanned` holds none.
    private var scanned = 0
    /// Skipping the rest of a line that was too long.
    private var skipping = false
    private var atEnd = false
    /// Runs before a read that may wait (to flush output a feeding program waits for).
    public var beforeWaiting: (() -> Void)?

    public init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The next line, waiting for it if need be; nil at the end of the input.
    public mutating func next() throws(ParleyError) -> String? {
        while true {
            if let line = try takeLine() { return line }
            if atEnd { return takeRest() }
            beforeWaiting?()
            fill()
        }
    }

    /// The next line if it is already read or can be read without waiting.
    public mutating func nextIfReady() throws(ParleyError) -> String? {
        if let line = try takeLine() { return line }
        if atEnd { return takeRest() }
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, 0) > 0 else { return nil }
        fill()
        return try takeLine() ?? (atEnd ? takeRest() : nil)
    }

    private mutating func takeLine() throws(ParleyError) -> String? {
        while true {
            guard let newline = buffer[scanned...].firstIndex(of: 10) else {
                scanned = buffer.count
                guard scanned - start > Self.maxLineBytes, !skipping else {
                    if skipping { start = scanned }
                    return nil
                }
                // Refused once, then the rest of it is dropped as it comes.
                skipping = true
                start = scanned
                throw Self.tooLong
            }
            scanned = newline + 1
            if skipping || newline - start > Self.maxLineBytes {
                let refuse = !skipping
                skipping = false
                start = scanned
                if refuse { throw Self.tooLong }
                continue
            }
            var end = newline
            if end > start && buffer[end - 1] == 13 { end -= 1 }
            let line = text(start..<end)
            start = scanned
            return line
        }
    }

    private static let tooLong = ParleyError(.usage, "the line is longer than \(maxLineBytes / 1024) KiB; it was skipped")

    /// The last line when the input does not end with a newline.
    private mutating func takeRest() -> String? {
        guard start < buffer.count, !skipping else { return nil }
        let line = text(start..<buffer.count)
        start = buffer.count
        scanned = start
        return line
    }

    private func text(_ range: Range<Int>) -> String {
        buffer.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// Reads what is there (waiting if nothing is), keeping the unread part.
    private mutating func fill() {
        if start > 0 {
            buffer.removeSubrange(..<start)
            scanned -= start
            start = 0
        }
        let chunk = 1 << 16
        let old = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: chunk))
        var count: Int
        repeat {
            count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + old, chunk) }
        } while count < 0 && errno == EINTR
        buffer.removeLast(chunk - max(count, 0))
        if count <= 0 { atEnd = true }
    }
}
